// Column names that match the warehouse's only up to letter case. Definitions written for a
// case-insensitive warehouse (Snowflake: `ORDER_ID`, `Amount`) meet ClickHouse, which is
// case-sensitive. A name missing from its table with exactly one column equal to it ignoring
// case is read as that column: the tests' columns and SQL are rewritten to the warehouse's
// spelling (their keys, names and checks stay as written, so history and identity do not move),
// and the match is reported as a warning naming both. Two or more such columns: nothing is
// guessed, the column stays missing, and the match is reported as an error.
import type { ColumnRef, InferredTest, Probe } from "../infer/types.js";
import type { WarehouseSchema } from "./types.js";

export interface CaseMatch {
  datasource: string;
  table: string;
  /** as the definitions write it */
  written: string;
  /** the warehouse's columns equal to it ignoring case: one (resolved) or more (ambiguous) */
  actual: string[];
  /** metrics whose tests read it */
  metrics: string[];
}

export interface CaseResolution {
  tests: InferredTest[];
  /** one match per (datasource, table, written name), in the order first met */
  matches: CaseMatch[];
}

const TOKEN = /'(?:[^'\\]|\\.|'')*'|`(?:[^`\\]|\\.)*`|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|[^'`"A-Za-z_]+/gs;

/**
 * `sql` with the column names in `renames` spelt as the warehouse does: bare, `backticked` or
 * "double-quoted" names, never text in strings, function names (followed by `(`) or parts of
 * a qualified name (`db`.`table`).
 */
export function renameColumns(sql: string, renames: ReadonlyMap<string, string>): string {
  if (renames.size === 0) return sql;
  const tokens = sql.match(TOKEN) ?? [];
  let out = "";
  tokens.forEach((token, i) => {
    const before = out.at(-1);
    const after = tokens[i + 1]?.trimStart()[0];
    const qualified = before === "." || after === ".";
    const quote = token[0] === "`" || token[0] === '"' ? token[0] : null;
    const name = quote === null ? token : token.slice(1, -1);
    const renamed = renames.get(name);
    if (renamed === undefined || qualified || token[0] === "'" || (quote === null && after === "(")) out += token;
    else out += quote === null ? renamed : `${quote}${renamed}${quote}`;
  });
  return out;
}

function renameProbe(probe: Probe, rename: (sql: string) => string): Probe {
  switch (probe.type) {
    case "rows_where":
      return { ...probe, violation: rename(probe.violation) };
    case "duplicate_keys":
      return { ...probe, key: rename(probe.key) };
    case "staleness":
      return { ...probe, column: rename(probe.column) };
    case "volume_series":
    case "load_cadence":
      return { ...probe, timestamp: rename(probe.timestamp) };
    case "value_series":
      return { ...probe, timestamp: rename(probe.timestamp), measure: { ...probe.measure, sql: rename(probe.measure.sql) } };
    case "not_empty":
    case "schema":
      return probe;
  }
}

export function resolveColumnCase(tests: readonly InferredTest[], schema: WarehouseSchema): CaseResolution {
  const matches = new Map<string, CaseMatch>();
  // datasource|table -> lower-case name -> the table's columns with that name
  const folded = new Map<string, Map<string, string[]>>();
  const foldedOf = (datasource: string, table: string): Map<string, string[]> | null => {
    const columns = schema[datasource]?.[table];
    if (columns === undefined) return null;
    const id = `${datasource}|${table}`;
    let map = folded.get(id);
    if (map === undefined) {
      map = new Map();
      for (const name of Object.keys(columns)) map.set(name.toLowerCase(), [...(map.get(name.toLowerCase()) ?? []), name]);
      folded.set(id, map);
    }
    return map;
  };
  const matchOf = (test: InferredTest, ref: ColumnRef): CaseMatch | null => {
    const columns = schema[test.datasource]?.[ref.table];
    if (columns === undefined || columns[ref.column] !== undefined) return null;
    const actual = foldedOf(test.datasource, ref.table)?.get(ref.column.toLowerCase());
    if (actual === undefined) return null;
    const id = `${test.datasource}|${ref.table}|${ref.column}`;
    let match = matches.get(id);
    if (match === undefined) {
      match = { datasource: test.datasource, table: ref.table, written: ref.column, actual: [...actual].sort(), metrics: [] };
      matches.set(id, match);
    }
    if (!match.metrics.includes(test.metric)) match.metrics.push(test.metric);
    return match;
  };

  // Nearly every test names its columns as the warehouse spells them: nothing is allocated for
  // those (a scan runs this over 134,000 tests at 10,000 metrics, in one turn of the event loop).
  const renamesOf = (test: InferredTest): Map<string, string> | null => {
    let renames: Map<string, string> | null = null;
    let conflicting: Set<string> | null = null;
    for (const refs of [test.columns, test.filter_columns])
      for (const ref of refs) {
        const match = matchOf(test, ref);
        if (match === null || match.actual.length !== 1) continue;
        renames ??= new Map();
        const known = renames.get(ref.column);
        if (known !== undefined && known !== match.actual[0]) (conflicting ??= new Set()).add(ref.column);
        renames.set(ref.column, match.actual[0]!);
      }
    if (renames === null) return null;
    for (const name of conflicting ?? []) renames.delete(name);
    return renames.size > 0 ? renames : null;
  };

  const out = tests.map((test) => {
    const renames = renamesOf(test);
    if (renames === null) return test;
    const rename = (sql: string) => renameColumns(sql, renames);
    const renameRef = (ref: ColumnRef): ColumnRef => {
      const to = renames.get(ref.column);
      return to === undefined || schema[test.datasource]?.[ref.table]?.[to] === undefined ? ref : { ...ref, column: to };
    };
    return {
      ...test,
      filter: test.filter === null ? null : rename(test.filter),
      columns: test.columns.map(renameRef),
      filter_columns: test.filter_columns.map(renameRef),
      probe: renameProbe(test.probe, rename),
      sample_sql: rename(test.sample_sql),
    };
  });
  return { tests: out, matches: [...matches.values()] };
}

/** "shop.orders: amount is the warehouse's Amount (matched ignoring letter case)" and the ambiguous twin. */
export function caseMatchMessage(match: CaseMatch): string {
  const where = `${match.table}: ${match.written}`;
  if (match.actual.length === 1)
    return `${where} is the warehouse's ${match.actual[0]} (matched ignoring letter case; read as ${match.actual[0]})`;
  return `${where} matches ${match.actual.join(" and ")} ignoring letter case: ambiguous, not read (write the warehouse's spelling)`;
}
