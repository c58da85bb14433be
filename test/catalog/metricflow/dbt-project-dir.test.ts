// A whole dbt project on disk, METRICS_DIR at its root: nested folders, .sql models,
// dbt_project.yml, target/ and a .git folder load as they are.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCatalogSnapshot } from "../../../src/services/load-catalog.js";

const root = await mkdtemp(path.join(os.tmpdir(), "dbt-project-"));
afterAll(() => rm(root, { recursive: true, force: true }));

const FILES: Record<string, string> = {
  "dbt_project.yml": "name: jaffle\nversion: '1.0.0'\nprofile: jaffle\nmodel-paths: [models]\n",
  "packages.yml": "packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.1.1\n",
  "models/staging/stg_orders.sql": "select * from {{ source('raw', 'orders') }}\n",
  "models/staging/_sources.yml":
    "version: 2\nsources:\n  - name: raw\n    tables:\n      - name: orders\n        columns:\n          - name: id\n            tests: [not_null]\n",
  "models/marts/orders.sql": "select * from {{ ref('stg_orders') }}\n",
  "models/marts/orders.yml": `version: 2
models:
  - name: orders
    columns:
      - name: order_id
        data_tests: [unique, not_null]
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order_id, type: primary }]
    dimensions: [{ name: ordered_at, type: time, type_params: { time_granularity: day } }]
    measures: [{ name: order_total, agg: sum }]
metrics:
  - name: order_total
    type: simple
    type_params: { measure: order_total }
`,
  "models/marts/nested/deeper/ours.yaml":
    "metrics:\n  - name: raw_orders\n    table: raw.orders\n    measures: [{ alias: n, function: Count }]\n",
  "target/compiled/jaffle/models/marts/orders.yml": "this: [is, not, read\n",
  ".git/config.yml": "not: read\n",
};

describe("a dbt project in nested folders", () => {
  it("loads with METRICS_DIR at its root, both formats side by side, without errors or warnings", async () => {
    for (const [name, content] of Object.entries(FILES)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), content);
    }
    const snapshot = await loadCatalogSnapshot(root, new Date(), { metricflowDatabase: "analytics" });
    expect(snapshot.errors).toEqual([]);
    expect(snapshot.warnings).toEqual([]);
    const label = path.basename(root);
    expect(snapshot.metrics.map((m) => [m.name, m.table, m.source])).toEqual([
      ["raw_orders", "raw.orders", { format: "ours", file: `${label}/models/marts/nested/deeper/ours.yaml` }],
      ["order_total", "analytics.orders", { format: "metricflow", file: `${label}/models/marts/orders.yml` }],
    ]);
    const rules = (metric: string) => snapshot.tests.filter((t) => t.metric === metric).map((t) => t.rule);
    expect(rules("order_total")).toEqual(
      expect.arrayContaining(["primary_key_unique", "primary_key_not_null", "dbt_unique", "dbt_not_null"]),
    );
    // the source's dbt test reaches the metric reading raw.orders
    expect(rules("raw_orders")).toContain("dbt_not_null");
  });
});
