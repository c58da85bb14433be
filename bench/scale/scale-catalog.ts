// The scale benchmark's catalogue: N metrics over T tables of the wide dataset (wide-mode.ts),
// varied like a real catalogue (many segments per table, several measures and breakdowns), so
// that 10,000 metrics infer about 100,000 tests.
import type { MetricSpec } from "../bench-catalog.js";
import { tableName, MEASURES as WIDE_MEASURES } from "../wide-mode.js";

/** The wide dataset's measures but two (price_sum, qty_max), so each table has fewer distinct checks. */
const MEASURES = WIDE_MEASURES.filter((m) => m.alias !== "price_sum" && m.alias !== "qty_max");

/** Segments a team slices one table by: 14 filters (none included). */
const FILTERS: (string | undefined)[] = [
  undefined,
  ...["a", "b", "c"].map((k) => `kind = '${k}'`),
  ...[0, 1, 2, 3, 4].map((q) => `qty > ${q}`),
  ...[20, 50, 80].map((s) => `score < ${s}`),
  ...[0, 5].map((l) => `label = 'l${l}'`),
];

/**
 * `segmented`: the share of metrics whose anomaly series are also read per `label` (50 values
 * in the wide dataset): every metric with j % 10 === 1 at 0.1, which has the label dimension.
 */
export function scaleMetrics(db: string, tables: number, metrics: number, segmented = 0): Record<string, MetricSpec[]> {
  const every = segmented > 0 ? Math.round(1 / segmented) : 0;
  const files: Record<string, MetricSpec[]> = {};
  const perTable = Math.ceil(metrics / tables);
  for (let n = 0; n < metrics; n += 1) {
    const i = Math.floor(n / perTable) % tables;
    const j = n % perTable;
    const table = `${db}.${tableName(i)}`;
    const filter = FILTERS[j % FILTERS.length];
    const measures =
      j % 4 === 0 ? [MEASURES[j % MEASURES.length]!, MEASURES[(j + 3) % MEASURES.length]!] : [MEASURES[j % MEASURES.length]!];
    const joined = j % 4 === 1 ? `${db}.${tableName((i + 1) % tables)}` : null;
    const metric: MetricSpec = {
      name: `${tableName(i)}_m${j}`,
      table,
      ...(filter ? { filter } : {}),
      timestamp: "ts",
      ...(j % 3 === 0 ? { freshness: "1d" } : {}),
      measures,
      dimensions: [
        ...(joined ? [{ name: "parent_label", column: "label", table: joined }] : []),
        ...(j % 2 === 0 ? [{ name: "kind", column: "kind" }] : [{ name: "label", column: "label" }]),
      ],
      ...(joined ? { joins: [{ table: joined, on: { column: "parent_id", references: "id" } }] } : {}),
      // j % every === 1 is odd: the metric has the `label` dimension.
      ...(every > 0 && j % every === 1 ? { anomalies: { segments: ["label"] } } : {}),
    };
    (files[`${tableName(i)}.yaml`] ??= []).push(metric);
  }
  return files;
}
