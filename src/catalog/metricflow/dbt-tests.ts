// dbt column tests (`tests:` or `data_tests:` under `models:` / `sources:` columns) read as
// declared tests of the table they are on. not_null, unique, relationships and
// accepted_values are run; any other test is named in a warning, never silently dropped.
import { isQualifiedTable } from "../../sql/identifiers.js";
import { DECLARED_TEST_KINDS, type CatalogWarning, type DeclaredTest, type DeclaredTestKind } from "../types.js";
import { refName, sourceName } from "./relation.js";

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const KINDS = new Set<string>(DECLARED_TEST_KINDS);

export interface DbtTestsResult {
  tests: DeclaredTest[];
  warnings: CatalogWarning[];
}

function configOf(body: Record<string, unknown>): Record<string, unknown> {
  return isMapping(body.config) ? body.config : {};
}

/** dbt 1.10 moved test arguments under `arguments:`; both spellings are read. */
function argumentsOf(body: Record<string, unknown>): Record<string, unknown> {
  return isMapping(body.arguments) ? { ...body, ...body.arguments } : body;
}

function readColumnTests(
  table: string,
  column: string,
  raw: unknown[],
  file: string,
  resolveTable: (text: string) => string | null,
  out: DbtTestsResult,
): void {
  for (const entry of raw) {
    const name = typeof entry === "string" ? entry : isMapping(entry) ? Object.keys(entry)[0] : undefined;
    if (name === undefined) continue;
    const body = isMapping(entry) && isMapping(entry[name]) ? argumentsOf(entry[name]) : {};
    const bare = name.startsWith("dbt.") ? name.slice(4) : name;
    if (!KINDS.has(bare)) {
      out.warnings.push({
        file,
        message: `${file}: ${table}.${column}: dbt test ${name} is not run (supported: ${DECLARED_TEST_KINDS.join(", ")})`,
      });
      continue;
    }
    const declared = configOf(body).severity ?? body.severity;
    const severity = typeof declared === "string" && declared.toLowerCase() === "warn" ? "warn" : "error";
    const test: DeclaredTest = { kind: bare as DeclaredTestKind, table, column, severity, file };
    if (bare === "relationships") {
      const to = typeof body.to === "string" ? resolveTable(body.to) : null;
      const field = typeof body.field === "string" ? body.field : null;
      if (to === null || field === null) {
        out.warnings.push({ file, message: `${file}: ${table}.${column}: relationships test needs to: ref('model') and field: (not run)` });
        continue;
      }
      test.to = { table: to, column: field };
    }
    if (bare === "accepted_values") {
      if (!Array.isArray(body.values) || body.values.length === 0) {
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
  owner: Record<string, unknown>,
  file: string,
  resolveTable: (text: string) => string | null,
  out: DbtTestsResult,
): void {
  if (!Array.isArray(owner.columns)) return;
  for (const column of owner.columns) {
    if (!isMapping(column) || typeof column.name !== "string") continue;
    const tests: unknown[] = [
      ...(Array.isArray(column.tests) ? (column.tests as unknown[]) : []),
      ...(Array.isArray(column.data_tests) ? (column.data_tests as unknown[]) : []),
    ];
    readColumnTests(table, column.name, tests, file, resolveTable, out);
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
  for (const model of Array.isArray(document.models) ? document.models : []) {
    if (!isMapping(model) || typeof model.name !== "string" || configOf(model).enabled === false) continue;
    const alias = typeof configOf(model).alias === "string" ? (configOf(model).alias as string) : model.name;
    const table = `${database}.${alias}`;
    if (isQualifiedTable(table)) readColumns(table, model, file, resolveTable, out);
  }
  for (const source of Array.isArray(document.sources) ? document.sources : []) {
    if (!isMapping(source) || typeof source.name !== "string" || !Array.isArray(source.tables)) continue;
    const schema = typeof source.schema === "string" ? source.schema : source.name;
    for (const table of source.tables) {
      if (!isMapping(table) || typeof table.name !== "string") continue;
      const qualified = `${schema}.${typeof table.identifier === "string" ? table.identifier : table.name}`;
      if (isQualifiedTable(qualified)) readColumns(qualified, table, file, resolveTable, out);
    }
  }
  return out;
}
