// Where a semantic model's rows live in ClickHouse: `node_relation` (schema = ClickHouse
// database, alias = table) or `model: ref('x')` (table x in METRICFLOW_DATABASE).
import { isIdentifier } from "../../sql/identifiers.js";
import type { MfRelation } from "./schema-model.js";

const REF = /^\s*ref\(\s*(['"])([^'"]+)\1\s*(?:,\s*(['"])([^'"]+)\3\s*)?\)\s*$/;
const SOURCE = /^\s*source\(\s*(['"])([^'"]+)\1\s*,\s*(['"])([^'"]+)\3\s*\)\s*$/;

/** `ref('x')` / `ref('package', 'x')` -> "x"; null when it is not a ref. */
export function refName(text: string): string | null {
  const match = REF.exec(text);
  if (!match) return null;
  return match[4] ?? match[2]!;
}

/** `source('schema', 'table')` -> ["schema", "table"]; null otherwise. */
export function sourceName(text: string): [string, string] | null {
  const match = SOURCE.exec(text);
  return match ? [match[2]!, match[4]!] : null;
}

/** "$source_schema" and other `$placeholders` stand for the configured database. */
function databaseOf(schema: string | null | undefined, fallback: string): string {
  if (typeof schema !== "string" || schema === "" || schema.startsWith("$")) return fallback;
  return schema;
}

export function tableOf(relation: MfRelation, database: string): { table: string } | { problem: string } {
  let table: string;
  if (typeof relation.model === "string") {
    const ref = refName(relation.model);
    const source = ref === null ? sourceName(relation.model) : null;
    if (ref !== null) table = `${database}.${ref}`;
    else if (source !== null) table = `${databaseOf(source[0], database)}.${source[1]}`;
    else return { problem: `model: expected ref('name'), got ${JSON.stringify(relation.model)}` };
  } else if (relation.node_relation) {
    const { alias, schema_name } = relation.node_relation;
    if (typeof alias !== "string") return { problem: "node_relation.alias: required" };
    table = `${databaseOf(schema_name, database)}.${alias}`;
  } else return { problem: "needs node_relation or model: ref('...')" };
  const [db, name] = table.split(".");
  if (!isIdentifier(db ?? "") || !isIdentifier(name ?? "") || table.split(".").length !== 2) {
    return { problem: `table ${JSON.stringify(table)} is not a ClickHouse database.table` };
  }
  return { table };
}
