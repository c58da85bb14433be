// dbt column tests (`tests:` or `data_tests:` under `models:` / `sources:` columns) read as
// declared tests of the table they are on. not_null, unique, relationships and
// accepted_values are run; any other test is named in a warning, never silently dropped.
// These files are dbt's: only a thin slice is read, so the schemas are lenient (`catch`): an
// entry this reader cannot use is skipped without a word, as dbt validates its own files.
import { z } from "zod";
import { isQualifiedTable } from "../../sql/identifiers.js";
import { DECLARED_TEST_KINDS, type CatalogWarning, type DeclaredTest, type DeclaredTestKind } from "../types.js";
import { refName, sourceName } from "./relation.js";

const KINDS = new Set<string>(DECLARED_TEST_KINDS);

/** Anything but a list reads as an empty one. */
const lenientList = z.array(z.unknown()).catch([]);
const optionalText = z.string().optional().catch(undefined);
const mapping = z.record(z.string(), z.unknown());
const config = z.looseObject({ enabled: z.unknown().optional(), alias: optionalText, severity: optionalText }).catch({});

const dbtModel = z.looseObject({ name: z.string(), config, columns: lenientList });
const dbtSource = z.looseObject({ name: z.string(), schema: optionalText, tables: z.array(z.unknown()) });
const dbtTable = z.looseObject({ name: z.string(), identifier: optionalText, columns: lenientList });
const dbtColumn = z.looseObject({ name: z.string(), tests: lenientList, data_tests: lenientList });
/** `unique`, or `{ relationships: { to: ..., field: ... } }`: the test's name and its body. */
const testEntry = z.union([z.string(), mapping]);
/** dbt 1.10 moved test arguments under `arguments:`; both spellings are read. */
const testBody = mapping.catch({}).transform((body) => {
  const args = mapping.safeParse(body.arguments);
  return args.success ? { ...body, ...args.data } : body;
});
const testArguments = z.looseObject({
  config,
  severity: optionalText,
  to: optionalText,
  field: optionalText,
  values: z.array(z.unknown()).optional().catch(undefined),
});

export interface DbtTestsResult {
  tests: DeclaredTest[];
  warnings: CatalogWarning[];
}

function readColumnTests(
  table: string,
  column: string,
  raw: unknown[],
  file: string,
  resolveTable: (text: string) => string | null,
  out: DbtTestsResult,
): void {
  for (const item of raw) {
    const entry = testEntry.safeParse(item);
    if (!entry.success) continue;
    const name = typeof entry.data === "string" ? entry.data : Object.keys(entry.data)[0];
    if (name === undefined) continue;
    const body = testArguments.parse(typeof entry.data === "string" ? {} : testBody.parse(entry.data[name]));
    const bare = name.startsWith("dbt.") ? name.slice(4) : name;
    if (!KINDS.has(bare)) {
      out.warnings.push({
        file,
        message: `${file}: ${table}.${column}: dbt test ${name} is not run (supported: ${DECLARED_TEST_KINDS.join(", ")})`,
      });
      continue;
    }
    const declared = body.config.severity ?? body.severity;
    const severity = declared?.toLowerCase() === "warn" ? "warn" : "error";
    const test: DeclaredTest = { kind: bare as DeclaredTestKind, table, column, severity, file };
    if (bare === "relationships") {
      const to = body.to === undefined ? null : resolveTable(body.to);
      if (to === null || body.field === undefined) {
        out.warnings.push({ file, message: `${file}: ${table}.${column}: relationships test needs to: ref('model') and field: (not run)` });
        continue;
      }
      test.to = { table: to, column: body.field };
    }
    if (bare === "accepted_values") {
      if (body.values === undefined || body.values.length === 0) {
        out.warnings.push({ file, message: `${file}: ${table}.${column}: accepted_values test needs values: (not run)` });
        continue;
      }
      test.values = body.values.map(String);
    }
    out.tests.push(test);
  }
}

function readColumns(
  table: string,
  columns: unknown[],
  file: string,
  resolveTable: (text: string) => string | null,
  out: DbtTestsResult,
): void {
  for (const item of columns) {
    const column = dbtColumn.safeParse(item);
    if (column.success)
      readColumnTests(table, column.data.name, [...column.data.tests, ...column.data.data_tests], file, resolveTable, out);
  }
}

/** Tests of one file's `models:` and `sources:` lists. */
export function readDbtTests(document: Record<string, unknown>, file: string, database: string): DbtTestsResult {
  const out: DbtTestsResult = { tests: [], warnings: [] };
  const resolveTable = (text: string): string | null => {
    const ref = refName(text);
    if (ref !== null) return `${database}.${ref}`;
    const source = sourceName(text);
    return source === null ? null : `${source[0]}.${source[1]}`;
  };
  for (const item of lenientList.parse(document.models)) {
    const model = dbtModel.safeParse(item);
    if (!model.success || model.data.config.enabled === false) continue;
    const table = `${database}.${model.data.config.alias ?? model.data.name}`;
    if (isQualifiedTable(table)) readColumns(table, model.data.columns, file, resolveTable, out);
  }
  for (const item of lenientList.parse(document.sources)) {
    const source = dbtSource.safeParse(item);
    if (!source.success) continue;
    const schema = source.data.schema ?? source.data.name;
    for (const tableItem of source.data.tables) {
      const table = dbtTable.safeParse(tableItem);
      if (!table.success) continue;
      const qualified = `${schema}.${table.data.identifier ?? table.data.name}`;
      if (isQualifiedTable(qualified)) readColumns(qualified, table.data.columns, file, resolveTable, out);
    }
  }
  return out;
}
