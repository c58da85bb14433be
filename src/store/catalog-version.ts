// A catalogue version's checks and test definitions, written once: a scan of a version the store
// already holds writes nothing here.
import { mapSlices } from "../event-loop/chunked.js";
import type { InferredTest } from "../infer/types.js";
import { notifyChange } from "./change-feed.js";
import { checkId } from "./check-id.js";
import type { Sql } from "./sql-session.js";
import { insertRows } from "./unnest.js";

export async function ensureCatalogVersion(
  sql: Sql,
  version: string,
  tests: readonly InferredTest[],
  at: Date,
  origin?: string,
): Promise<void> {
  const { rowCount } = await sql(`INSERT INTO "catalog_versions" ("hash", "created_at") VALUES ($1, $2) ON CONFLICT ("hash") DO NOTHING`, [
    version,
    at,
  ]);
  if (rowCount === 0) return;
  await notifyChange(sql, { kind: "catalog", id: version, ...(origin ? { origin } : {}) });

  const checks = new Map<string, InferredTest>();
  for (const test of tests) if (!checks.has(test.key)) checks.set(test.key, test);
  const distinct = [...checks.values()];
  await insertRows(sql, {
    table: "checks",
    columns: {
      id: "bigint",
      key: "text",
      datasource: "text",
      table_name: "text",
      filter: "text",
      rule: "text",
      check: "text",
      sample_sql: "text",
    },
    // In slices: a catalogue's first scan hashes tens of thousands of keys here.
    rows: await mapSlices(distinct, (slice) =>
      slice.map((t) => [checkId(t.key), t.key, t.datasource, t.table, t.filter, t.rule, t.check, t.sample_sql]),
    ),
    onConflict: `ON CONFLICT ("id") DO NOTHING`,
  });
  await insertRows(sql, {
    table: "test_definitions",
    columns: {
      catalog_version: "text",
      metric: "text",
      check_id: "bigint",
      rule: "text",
      name: "text",
      severity: "text",
      confidence: "text",
      tolerance: "float8",
    },
    rows: await mapSlices(tests, (slice) =>
      slice.map((t) => [version, t.metric, checkId(t.key), t.rule, t.name, t.severity, t.confidence, t.tolerance]),
    ),
    // inferCatalog yields one test per (metric, key); a repeat would be a bug upstream, not a reason to fail the scan
    onConflict: `ON CONFLICT DO NOTHING`,
  });
}
