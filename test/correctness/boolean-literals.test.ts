// A filter with a boolean literal runs on ClickHouse 18.16 (which has no true/false) and on chdb
// 26.x (against a real Bool column there): MetricFlow's `{{ Dimension('order_id__is_food_order') }} = true`
// and our own format's `= false`, scanned through the real loader, planner and warehouse.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { runScan, tableQueries, type ScanRun } from "./run-scan.js";

const MODELS = `semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order_id, type: primary }]
    dimensions:
      - { name: ordered_at, type: time, type_params: { time_granularity: day } }
      - { name: is_food_order, type: categorical }
    measures: [{ name: order_total, agg: sum }]
metrics:
  - name: food_revenue
    type: simple
    type_params: { measure: order_total }
    filter: "{{ Dimension('order_id__is_food_order') }} = true"
`;

const ours = (db: string) => `metrics:
  - name: drinks_revenue
    table: ${db}.orders
    filter: "is_food_order = false AND note != 'true'"
    measures: [{ alias: revenue, function: Sum, column: order_total }]
`;

const root = await mkdtemp(path.join(os.tmpdir(), "mr-booleans-"));
afterAll(() => rm(root, { recursive: true, force: true }));

describe.each(engineCases)("$name: boolean literals in definitions' filters", (engine) => {
  const db = uniqueDatabase("mr_bool");
  let handle: WarehouseHandle | undefined;
  let snapshot: CatalogSnapshot;
  let run: ScanRun;

  beforeAll(async () => {
    handle = await engine.open();
    // 18.16 has no Bool type (UInt8 is its boolean); chdb's current ClickHouse has.
    const bool = engine.name === "embedded" ? "Bool" : "UInt8";
    await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle.exec(`CREATE DATABASE ${db}`);
    await handle.exec(
      `CREATE TABLE ${db}.orders (order_id UInt32, ordered_at DateTime, is_food_order ${bool}, note String, order_total Nullable(Float64))
         ENGINE = MergeTree() ORDER BY order_id`,
    );
    // 10 orders, the even ones food; one food (2) and two drinks (3, 5) orders have a NULL total.
    await handle.exec(
      `INSERT INTO ${db}.orders SELECT n, now() - n * 60, CAST(n % 2 = 0 AS ${bool}), 'x',
         if(n IN (2, 3, 5), CAST(NULL AS Nullable(Float64)), CAST(n AS Nullable(Float64)))
       FROM (SELECT toUInt32(number + 1) AS n FROM numbers(10))`,
    );
    const dir = path.join(root, engine.name);
    await mkdir(path.join(dir, "models"), { recursive: true });
    await writeFile(path.join(dir, "dbt_project.yml"), "name: shop\nversion: '1.0.0'\nprofile: shop\nmodel-paths: [models]\n");
    await writeFile(path.join(dir, "models", "orders.yml"), MODELS);
    await writeFile(path.join(dir, "ours.yaml"), ours(db));
    snapshot = await loadCatalogSnapshot(dir, new Date(), { metricflowDatabase: db });
    run = await runScan(snapshot, handle.warehouse, { scanId: `bool-${engine.name}` });
  });
  afterAll(async () => {
    if (!handle) return;
    await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle.close();
  });

  it("compiles `= true` and `= false` to 1 and 0, string literals kept", () => {
    expect(snapshot.errors).toEqual([]);
    const filters = Object.fromEntries(snapshot.metrics.map((m) => [m.name, m.filter]));
    expect(filters).toEqual({ drinks_revenue: "is_food_order = 0 AND note != 'true'", food_revenue: "is_food_order = 1" });
  });

  it("runs every test under the filters and counts exactly the planted rows", () => {
    expect(run.results.filter((r) => r.outcome === "not_evaluated")).toEqual([]);
    expect(run.blocked.size).toBe(0);
    const nulls = (metric: string) =>
      run.results.find((r) => r.metric === metric && r.rule === "measure_not_null" && r.check === "order_total IS NOT NULL");
    expect(nulls("food_revenue")).toMatchObject({ outcome: "measured", status: "failing", rows_affected: 1, rows_total: 5 });
    expect(nulls("drinks_revenue")).toMatchObject({ outcome: "measured", status: "failing", rows_affected: 2, rows_total: 5 });
    expect(
      tableQueries(run.sent)
        .map((q) => q.sql)
        .join("\n"),
    ).not.toMatch(/\b(true|false)\b(?!')/i);
  });
});
