// Asks each datasource whether it can parse the SQL fragments of the catalogue's metrics
// (see plan/sql-fragments.ts). A chunk that fails with a syntax error is halved until the
// unparsable fragments are found; a chunk that parses costs one query. Answers are kept in the
// catalogue's findings (infer/catalog-findings.ts), so each fragment is asked once per catalogue,
// and the errors are served by GET /v1/compiler/ir beside the compile errors.
import type { CatalogError } from "../catalog/types.js";
import { metricFragments, parseProbe, probeChunks, SYNTAX_ERROR_CODE } from "../plan/sql-fragments.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { CatalogFindings } from "../infer/catalog-findings.js";
import { WarehouseError } from "../warehouse/warehouse-error.js";
import type { Warehouse } from "../warehouse/warehouse.js";

export interface CheckOptions {
  queryIdPrefix: string;
  signal?: AbortSignal;
  /** bytes per probe query; below ClickHouse's max_query_size */
  maxQuerySize: number;
}

/** null: parses; a string: ClickHouse's message. Throws on an outage (never a finding). */
async function parseError(warehouse: Warehouse, texts: string[], options: CheckOptions, id: () => string): Promise<string | null> {
  try {
    await warehouse.query(parseProbe(texts), { queryId: id(), ...(options.signal ? { signal: options.signal } : {}) });
    return null;
  } catch (error) {
    if (error instanceof WarehouseError && error.kind === "query") return error.clickhouseCode === SYNTAX_ERROR_CODE ? error.message : null;
    throw error;
  }
}

async function findUnparsable(
  warehouse: Warehouse,
  texts: string[],
  options: CheckOptions,
  id: () => string,
  out: Map<string, string>,
): Promise<void> {
  const message = await parseError(warehouse, texts, options, id);
  if (message === null) return;
  if (texts.length === 1) {
    out.set(texts[0]!, message);
    return;
  }
  const half = Math.ceil(texts.length / 2);
  await findUnparsable(warehouse, texts.slice(0, half), options, id, out);
  await findUnparsable(warehouse, texts.slice(half), options, id, out);
}

/**
 * Checks the fragments `known` has not checked yet and returns what is known after: every
 * answer, and metric name -> error for every metric with an unparsable fragment. Datasources
 * without a warehouse are skipped (their tests report the missing datasource). Throws on an outage.
 */
export async function checkCatalogSql(
  snapshot: CatalogSnapshot,
  known: Pick<CatalogFindings, "sql_checked" | "sql_errors">,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: CheckOptions,
): Promise<Pick<CatalogFindings, "sql_checked" | "sql_errors">> {
  const fragments = snapshot.metrics.flatMap(metricFragments);
  const pending = new Map<string, Set<string>>(); // datasource -> texts
  for (const f of fragments) {
    if (known.sql_checked.has(`${f.datasource}|${f.text}`) || !warehouses.has(f.datasource)) continue;
    const set = pending.get(f.datasource) ?? new Set<string>();
    set.add(f.text);
    pending.set(f.datasource, set);
  }
  if (pending.size === 0) return known;
  const checked = new Map(known.sql_checked);
  let n = 0;
  const id = () => `${options.queryIdPrefix}-sql${(n += 1)}`;
  for (const [datasource, texts] of pending) {
    const warehouse = warehouses.get(datasource)!;
    const bad = new Map<string, string>();
    for (const chunk of probeChunks([...texts], options.maxQuerySize - 512)) await findUnparsable(warehouse, chunk, options, id, bad);
    for (const text of texts) checked.set(`${datasource}|${text}`, bad.get(text) ?? null);
  }
  const errors = new Map<string, CatalogError>();
  const files = new Map(snapshot.metrics.map((m) => [m.name, m.file]));
  for (const f of fragments) {
    const message = checked.get(`${f.datasource}|${f.text}`);
    if (message == null || errors.has(f.metric)) continue;
    const file = files.get(f.metric) ?? "";
    errors.set(f.metric, {
      metric: f.metric,
      file,
      message: `${file}: metric ${JSON.stringify(f.metric)}: ${f.what} ${JSON.stringify(f.text)} cannot be parsed by ClickHouse: ${message}`,
    });
  }
  return { sql_checked: checked, sql_errors: errors };
}
