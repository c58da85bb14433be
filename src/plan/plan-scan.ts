// Turns inferred tests into the fewest warehouse queries: one SELECT per (datasource, table),
// the filters of its metrics folded into the aggregates, split only when it would pass
// max_query_size.
import type { InferredTest } from "../infer/types.js";
import { skipReason } from "./column-check.js";
import { adaptJoinKeys } from "./join-keys.js";
import { draftsFor, groupTests } from "./table-groups.js";
import type { ScanPlan, TableQuery, WarehouseSchema } from "./types.js";

export interface PlanOptions {
  /** bytes; ClickHouse's max_query_size (default 262144), which the warehouse's text must fit */
  maxQuerySize: number;
}

/**
 * Bytes the warehouse adds around a planned query, kept free below maxQuerySize: chdb wraps
 * it in a leading query-id comment (the id is up to 200 bytes) and a trailing SETTINGS clause
 * (about 100 bytes); the server client appends "\nFORMAT JSONEachRow". Both count toward
 * ClickHouse's max_query_size, so a query planned right at the limit would be refused.
 */
export const QUERY_WRAPPER_BYTES = 512;

/** Tests shared across metrics carry the same key and run once: keep the first. */
export function dedupeTests(tests: InferredTest[]): InferredTest[] {
  const byKey = new Map<string, InferredTest>();
  for (const test of tests) if (!byKey.has(test.key)) byKey.set(test.key, test);
  return [...byKey.values()];
}

/** One query per (datasource, table) of `tests`, their filters folded in, split only past max_query_size. */
export function queriesFor(
  tests: InferredTest[],
  schema: WarehouseSchema,
  options: PlanOptions,
  idOf: (n: number) => string,
): TableQuery[] {
  const queries: TableQuery[] = [];
  for (const group of groupTests(tests)) {
    for (const draft of draftsFor(group, schema, options.maxQuerySize - QUERY_WRAPPER_BYTES)) {
      queries.push({
        id: idOf(queries.length + 1),
        datasource: group.datasource,
        table: group.table,
        filters: group.filters,
        sql: draft.sql(),
        outputs: draft.outputs,
      });
    }
  }
  return queries;
}

export function planScan(tests: InferredTest[], schema: WarehouseSchema, options: PlanOptions): ScanPlan {
  const distinct: InferredTest[] = [];
  const skipped: ScanPlan["skipped"] = [];
  const samples: ScanPlan["sample_sql"] = {};
  const runnable: InferredTest[] = [];
  for (const test of dedupeTests(tests)) {
    // Schema tests are answered from system.columns by evaluate: a missing column is
    // their finding, not a reason to skip them.
    if (test.probe.type === "schema") {
      distinct.push(test);
      continue;
    }
    const skip = skipReason(test, schema);
    const adapted = skip === null ? adaptJoinKeys(test, schema) : { skip };
    if ("skip" in adapted) {
      distinct.push(test);
      skipped.push({ test_key: test.key, ...adapted.skip });
      continue;
    }
    distinct.push(adapted.test);
    runnable.push(adapted.test);
    if (adapted.test.sample_sql !== test.sample_sql) samples[test.key] = adapted.test.sample_sql;
  }

  const queries = queriesFor(runnable, schema, options, (n) => `q${n}`);
  return { tests: distinct, queries, skipped, failed: [], sample_sql: samples };
}

/**
 * Plans made separately (one per table, so a large catalogue can be planned in slices) as one
 * plan, their queries numbered q1, q2... in order as planScan would number them.
 */
export function mergePlans(plans: readonly ScanPlan[]): ScanPlan {
  const merged: ScanPlan = { tests: [], queries: [], skipped: [], failed: [], sample_sql: {} };
  for (const plan of plans) {
    merged.tests.push(...plan.tests);
    for (const query of plan.queries) merged.queries.push({ ...query, id: `q${merged.queries.length + 1}` });
    merged.skipped.push(...plan.skipped);
    merged.failed.push(...plan.failed);
    Object.assign(merged.sample_sql, plan.sample_sql);
  }
  return merged;
}

/** Tests grouped by the (datasource, table) they scan, in planScan's query order: its unit of work. */
export function byScannedTable(tests: readonly InferredTest[]): InferredTest[][] {
  const groups = new Map<string, { datasource: string; table: string; tests: InferredTest[] }>();
  for (const test of tests) {
    const key = `${test.datasource}\u0000${test.table}`;
    const group = groups.get(key);
    if (group) group.tests.push(test);
    else groups.set(key, { datasource: test.datasource, table: test.table, tests: [test] });
  }
  const order = (a: { datasource: string; table: string }, b: { datasource: string; table: string }) =>
    a.datasource !== b.datasource ? (a.datasource < b.datasource ? -1 : 1) : a.table < b.table ? -1 : a.table > b.table ? 1 : 0;
  return [...groups.values()].sort(order).map((group) => group.tests);
}
