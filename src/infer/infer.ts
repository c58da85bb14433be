// IR -> inferred tests. Pure: listing tests never touches the warehouse.
import type { MetricIR } from "../compile/ir.js";
import { columnsExist } from "./rules/columns-exist.js";
import { countKeyNotNull } from "./rules/count-key-not-null.js";
import { dbtDeclared } from "./rules/dbt-declared.js";
import { dimensionAcceptedValues } from "./rules/dimension-accepted-values.js";
import { filterColumnNotNull } from "./rules/filter-column-not-null.js";
import { foreignKeyNotNull } from "./rules/foreign-key-not-null.js";
import { primaryKeyNotNull, primaryKeyUnique } from "./rules/primary-key.js";
import { filterColumnsExist } from "./rules/filter-columns-exist.js";
import { dimensionNotNull } from "./rules/dimension-not-null.js";
import { freshness } from "./rules/freshness.js";
import { freshnessAnomaly } from "./rules/freshness-anomaly.js";
import { metricValueAnomaly } from "./rules/metric-value-anomaly.js";
import { volumeAnomaly } from "./rules/volume-anomaly.js";
import { joinKeyUnique } from "./rules/join-key-unique.js";
import { joinReferentialIntegrity } from "./rules/join-referential-integrity.js";
import { measureFinite } from "./rules/measure-finite.js";
import { measureNonNegative } from "./rules/measure-non-negative.js";
import { measureNotNull } from "./rules/measure-not-null.js";
import { tableNotEmpty } from "./rules/table-not-empty.js";
import { timestampNotFuture } from "./rules/timestamp-not-future.js";
import { createIntern, withInternedStrings } from "../intern.js";
import type { ColumnRef, InferredTest } from "./types.js";

/** In output order (the same order as RULE_IDS). */
export const RULES: readonly ((ir: MetricIR) => InferredTest[])[] = [
  tableNotEmpty,
  columnsExist,
  filterColumnsExist,
  primaryKeyUnique,
  primaryKeyNotNull,
  measureNotNull,
  measureFinite,
  measureNonNegative,
  countKeyNotNull,
  dimensionNotNull,
  dimensionAcceptedValues,
  filterColumnNotNull,
  joinKeyUnique,
  joinReferentialIntegrity,
  foreignKeyNotNull,
  timestampNotFuture,
  freshness,
  volumeAnomaly,
  metricValueAnomaly,
  freshnessAnomaly,
  dbtDeclared,
];

/**
 * One test per key and metric: e.g. Sum(amount) and Avg(amount) need one NULL check.
 * A derived metric can inherit one check from two inputs with different `tolerances:`;
 * it keeps the strictest, so it never looks healthier than its worst input.
 */
function uniqueByKey(tests: InferredTest[]): InferredTest[] {
  const index = new Map<string, number>();
  const unique: InferredTest[] = [];
  for (const test of tests) {
    const at = index.get(test.key);
    if (at === undefined) {
      index.set(test.key, unique.length);
      unique.push(test);
    } else if (test.tolerance < unique[at]!.tolerance) unique[at] = test;
  }
  return unique;
}

function inherited(ir: MetricIR, byName: Map<string, MetricIR>, visiting: Set<string>): InferredTest[] {
  const tests: InferredTest[] = [];
  for (const input of ir.inputs) {
    const source = byName.get(input);
    // Missing inputs and cycles are catalogue errors; guarded here so this stays total.
    if (!source || visiting.has(input)) continue;
    // The structured metric a test comes from is named once, e.g. "gross_revenue: revenue (amount) is never NULL".
    const own =
      source.kind === "derived"
        ? testsOf(source, byName, new Set([...visiting, input]))
        : ownTests(source).map((t) => ({
            ...t,
            name: `${source.name}: ${t.name}`,
            ...(t.measure === undefined ? {} : { measure: `${source.name}.${t.measure}` }),
          }));
    // Same key: the check runs once and its result is reported for each metric.
    tests.push(...own.map((test) => ({ ...test, metric: ir.name })));
  }
  return tests;
}

function ownTests(ir: MetricIR): InferredTest[] {
  return RULES.flatMap((rule) => rule(ir));
}

function testsOf(ir: MetricIR, byName: Map<string, MetricIR>, visiting: Set<string>): InferredTest[] {
  return uniqueByKey(ir.kind === "derived" ? inherited(ir, byName, visiting) : ownTests(ir));
}

/** Tests of one metric; `all` resolves a derived metric's inputs (recursively). */
export function inferTests(ir: MetricIR, all: MetricIR[]): InferredTest[] {
  return testsOf(ir, indexByName(all), new Set([ir.name]));
}

function indexByName(all: MetricIR[]): Map<string, MetricIR> {
  const byName = new Map<string, MetricIR>();
  for (const metric of all) if (!byName.has(metric.name)) byName.set(metric.name, metric);
  return byName;
}

/**
 * Tests with one key describe one check: they share its key, SQL and column lists as one set of
 * objects (a 10,000-metric catalogue has about four tests per distinct check), and keep their own
 * metric, name, severity, confidence and tolerance. Each comes out with flat, pooled strings
 * (intern.ts), one test at a time: the catalogue is never held twice.
 */
function checkSharer(): (test: InferredTest) => InferredTest {
  const first = new Map<string, InferredTest>();
  const pool = createIntern();
  // A column is named by many checks (a 10,000-metric catalogue: 71,000 references to a few
  // thousand columns): one object per column, shared like the strings.
  const refs = new Map<string, ColumnRef>();
  const columnRefs = (list: readonly ColumnRef[]): ColumnRef[] =>
    list.map(({ table, column }) => {
      const id = `${table}\u0000${column}`;
      let ref = refs.get(id);
      if (!ref) refs.set(id, (ref = { table: pool(table), column: pool(column) }));
      return ref;
    });
  return (test) => {
    let check = first.get(test.key);
    if (!check) {
      // Once per distinct check: its own strings, column lists and probe, pooled.
      check = {
        ...test,
        key: pool(test.key),
        check: pool(test.check),
        datasource: pool(test.datasource),
        table: pool(test.table),
        filter: test.filter === null ? null : pool(test.filter),
        columns: columnRefs(test.columns),
        filter_columns: columnRefs(test.filter_columns),
        probe: withInternedStrings(test.probe, pool),
        sample_sql: pool(test.sample_sql),
      };
      first.set(check.key, check);
    }
    // One object literal, `measure` included even when undefined: the fields live in the object
    // itself, and every test shares one hidden class. A spread adding `measure` gave each of the
    // 23,300 tests with one a hidden class of its own (12 MB at 10,000 metrics, heap snapshot).
    return {
      key: check.key,
      metric: pool(test.metric),
      rule: pool(test.rule),
      name: pool(test.name),
      check: check.check,
      severity: test.severity,
      confidence: test.confidence,
      tolerance: test.tolerance,
      datasource: check.datasource,
      table: check.table,
      filter: check.filter,
      columns: check.columns,
      filter_columns: check.filter_columns,
      probe: check.probe,
      sample_sql: check.sample_sql,
      measure: test.measure === undefined ? undefined : pool(test.measure),
    };
  };
}

/** Every metric's tests, in metric order then rule order; shared checks appear once per metric. */
export function inferCatalog(irs: MetricIR[]): InferredTest[] {
  const byName = indexByName(irs);
  const share = checkSharer();
  const tests: InferredTest[] = [];
  for (const ir of irs) for (const test of testsOf(ir, byName, new Set([ir.name]))) tests.push(share(test));
  return tests;
}
