import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/parse-catalog.js";
import type { StructuredMetricDefinition } from "../../src/catalog/types.js";

const GOOD = `metrics:
  - name: gross_revenue
    description: Revenue of completed orders
    table: shop.orders
    timestamp: created_at
    freshness: 6h
    filter: "status = 'completed'"
    tolerances: { measure_non_negative: 0.05 }
    measures:
      - { alias: revenue, function: Sum, column: amount, non_negative: true }
    dimensions:
      - { name: country, column: country }
      - { name: segment, column: segment, table: shop.customers }
    joins:
      - { table: shop.customers, on: { column: customer_id, references: id } }
  - name: order_count
    table: shop.orders
    measures:
      - { alias: orders, function: Count }
  - name: revenue_per_order
    kind: derived
    inputs: [gross_revenue, order_count]
    expression: gross_revenue / order_count
`;

const file = (name: string, content: string) => ({ file: `metrics/${name}`, content });
const one = (content: string) => parseCatalog([file("shop.yaml", content)]);
/** A one-metric catalogue from the body lines of a metric entry. */
const metric = (body: string) => one(`metrics:\n  - name: m\n${body.replace(/^/gm, "    ")}\n`);
const BASE = "table: shop.orders\nmeasures:\n  - { alias: revenue, function: Sum, column: amount }";

describe("parseCatalog", () => {
  it("loads a valid catalogue with defaults applied", () => {
    const catalog = one(GOOD);
    expect(catalog.errors).toEqual([]);
    expect(catalog.metrics.map((m) => m.name)).toEqual(["gross_revenue", "order_count", "revenue_per_order"]);
    const gross = catalog.metrics[0] as StructuredMetricDefinition;
    expect(gross).toMatchObject({
      kind: "structured",
      datasource: "default",
      freshness_seconds: 21_600,
      filter: "status = 'completed'",
      tolerances: { measure_non_negative: 0.05 },
      file: "metrics/shop.yaml",
    });
    expect(gross.measures[0]).toEqual({ alias: "revenue", function: "Sum", column: "amount", expr: null, non_negative: true });
    expect(gross.joins[0]).toEqual({
      table: "shop.customers",
      type: "left",
      from: "shop.orders",
      column: "customer_id",
      references: "id",
      relationship: "many_to_one",
    });
    expect(gross.dimensions[1]).toEqual({ name: "segment", column: "segment", expr: null, table: "shop.customers" });
    expect(gross.source).toEqual({ format: "ours", file: "metrics/shop.yaml" });
    expect(catalog.metrics[1]).toMatchObject({ measures: [{ alias: "orders", function: "Count", column: null }] });
    expect(catalog.metrics[2]).toMatchObject({
      kind: "derived",
      inputs: ["gross_revenue", "order_count"],
      expression: "gross_revenue / order_count",
    });
  });

  it("reports malformed YAML once, with the file and the line, and keeps other files", () => {
    const catalog = parseCatalog([file("b.yaml", "metrics:\n  - name: x\n   bad: [\n"), file("a.yaml", GOOD)]);
    expect(catalog.errors).toHaveLength(1);
    expect(catalog.errors[0]!.metric).toBeNull();
    expect(catalog.errors[0]!.file).toBe("metrics/b.yaml");
    expect(catalog.errors[0]!.message).toMatch(/^metrics\/b\.yaml: invalid YAML at line \d+, column \d+: /);
    expect(catalog.metrics).toHaveLength(3);
  });

  it("rejects a file without a metrics list and unknown top-level keys", () => {
    expect(one("").errors[0]!.message).toBe("metrics/shop.yaml: empty file: expected a top-level metrics: list");
    expect(one("- a\n").errors[0]!.message).toContain("expected a mapping");
    expect(one("metrics: 3\n").errors[0]!.message).toBe("metrics/shop.yaml: metrics: expected a list");
    const extra = one(`${GOOD}version: 2\n`);
    expect(extra.errors.map((e) => e.message)).toEqual(["metrics/shop.yaml: version: unknown top-level field (expected metrics)"]);
    expect(extra.metrics).toHaveLength(3);
  });

  it("names the file, the metric and the field path for a bad function", () => {
    const { errors, metrics } = metric("table: shop.orders\nmeasures:\n  - { alias: r, function: Summ, column: amount }");
    expect(metrics).toEqual([]);
    expect(errors).toEqual([
      {
        metric: "m",
        file: "metrics/shop.yaml",
        message:
          'metrics/shop.yaml: metric "m": measures[0].function: expected one of Sum|Count|CountDistinct|Avg|Min|Max|Median|Percentile|SumBoolean',
      },
    ]);
  });

  it("rejects unknown fields at any depth", () => {
    const messages = metric(
      `${BASE}\ntimestmap: created_at\njoins:\n  - { table: shop.c, on: { column: a, references: b, extra: 1 } }`,
    ).errors.map((e) => e.message);
    expect(messages).toContain('metrics/shop.yaml: metric "m": timestmap: unknown field');
    expect(messages).toContain('metrics/shop.yaml: metric "m": joins[0].on.extra: unknown field');
  });

  it("rejects bad identifiers, names and tables", () => {
    const messages = (body: string) =>
      metric(body)
        .errors.map((e) => e.message)
        .join("\n");
    expect(messages('table: shop.orders\nmeasures:\n  - { alias: r, function: Sum, column: "amount; DROP" }')).toContain(
      "measures[0].column: expected a ClickHouse identifier",
    );
    expect(messages("table: orders\nmeasures:\n  - { alias: r, function: Count }")).toContain("table: expected database.table");
    expect(messages(`${BASE}\ntimestamp: "created-at"`)).toContain("timestamp: expected a ClickHouse identifier");
    expect(
      one("metrics:\n  - name: Gross\n    table: shop.orders\n    measures: [{ alias: r, function: Count }]\n").errors[0]!.message,
    ).toBe('metrics/shop.yaml: metric "Gross": name: expected ^[a-z][a-z0-9_]{0,127}$');
    expect(messages(`${BASE}\ndatasource: Main`)).toContain("datasource: expected");
  });

  it("reports missing fields and nameless metrics by index", () => {
    const catalog = one("metrics:\n  - table: shop.orders\n    measures: [{ alias: r, function: Count }]\n");
    expect(catalog.errors[0]).toEqual({
      metric: null,
      file: "metrics/shop.yaml",
      message: "metrics/shop.yaml: metrics[0]: name: required",
    });
    expect(metric("table: shop.orders").errors[0]!.message).toContain("measures: required");
    expect(metric("table: shop.orders\nmeasures: []").errors[0]!.message).toContain(
      "measures: a structured metric needs at least one measure",
    );
  });

  it("reads expr, primary_key, multi-hop joins, percentile/median and accepted_values", () => {
    const { errors, metrics } = metric(`table: shop.orders
primary_key: id
measures:
  - { alias: net, function: Sum, expr: "amount - discount" }
  - { alias: p95, function: Percentile, column: amount, percentile: 0.95 }
  - { alias: mid, function: Median, column: amount }
dimensions:
  - { name: big, expr: "amount > 100" }
  - { name: region, column: name, table: geo.regions, accepted_values: [north, south] }
joins:
  - { table: shop.customers, on: { column: customer_id, references: id } }
  - { table: geo.regions, from: shop.customers, on: { column: region_id, references: id } }`);
    expect(errors).toEqual([]);
    const m = metrics[0] as StructuredMetricDefinition;
    expect(m.primary_key).toBe("id");
    expect(m.measures.map((x) => [x.function, x.column, x.expr, x.percentile ?? null])).toEqual([
      ["Sum", null, "amount - discount", null],
      ["Percentile", "amount", null, 0.95],
      ["Median", "amount", null, null],
    ]);
    expect(m.dimensions[0]).toEqual({ name: "big", column: null, expr: "amount > 100" });
    expect(m.dimensions[1]).toMatchObject({ table: "geo.regions", accepted_values: ["north", "south"] });
    expect(m.joins[1]).toMatchObject({ table: "geo.regions", from: "shop.customers", column: "region_id" });
  });

  it("rejects a hop from a table not joined before, an expr beside a column, a Percentile without percentile", () => {
    const messages = (body: string) => metric(body).errors.map((e) => e.message.replace('metrics/shop.yaml: metric "m": ', ""));
    expect(messages("table: shop.orders\nmeasures:\n  - { alias: r, function: Percentile, column: a }")).toEqual([
      "measures[0].percentile: required for Percentile",
    ]);
    expect(messages("table: shop.orders\nmeasures:\n  - { alias: r, function: Sum, column: a, expr: 'a * 2' }")).toEqual([
      "measures[0].expr: give either column or expr, not both",
    ]);
    expect(messages("table: shop.orders\nmeasures:\n  - { alias: r, function: Sum, expr: 'a; drop' }")).toEqual([
      "measures[0].expr: must not contain ';'",
    ]);
    expect(
      messages(
        "table: shop.orders\nmeasures: [{ alias: r, function: Count }]\njoins:\n  - { table: geo.regions, from: shop.customers, on: { column: region_id, references: id } }",
      ),
    ).toEqual(["joins[0].from: shop.customers is neither the base table nor joined before this join"]);
  });

  it("checks fields against each other", () => {
    const messages = (body: string) => metric(body).errors.map((e) => e.message.replace('metrics/shop.yaml: metric "m": ', ""));
    expect(messages("table: shop.orders\nmeasures:\n  - { alias: r, function: Sum }")).toEqual([
      "measures[0].column: required for Sum (or expr)",
    ]);
    expect(messages("table: shop.orders\nmeasures:\n  - { alias: r, function: Count, non_negative: true }")).toEqual([
      "measures[0].non_negative: only allowed for Sum|Avg|Min|Max",
    ]);
    expect(messages(`${BASE}\nfreshness: 6h`)).toEqual(["freshness: needs a timestamp column"]);
    expect(messages(`${BASE}\ndimensions:\n  - { name: s, column: s, table: shop.other }`)[0]).toMatch(
      /^dimensions\[0\]\.table: shop\.other is neither the base table nor a joined table/,
    );
    expect(messages(`${BASE}\ntolerances: { measure_not_nul: 0.1 }`)[0]).toMatch(/^tolerances\.measure_not_nul: unknown rule id/);
    expect(messages(`${BASE}\ntolerances: { measure_not_null: 2 }`)[0]).toMatch(/^tolerances\.measure_not_null: /);
    expect(messages(`${BASE}\nfreshness: 6 hours\ntimestamp: t`)).toEqual(["freshness: expected <n>s|m|h|d|w, e.g. 6h"]);
  });

  it("reads and checks the anomalies block", () => {
    const messages = (body: string) => metric(body).errors.map((e) => e.message.replace('metrics/shop.yaml: metric "m": ', ""));
    const ok = metric(
      `${BASE}\ntimestamp: t\nanomalies: { enabled: true, grain: hour, training_buckets: 336, detection_buckets: 10000, sensitivity: 3.5, seasonality: weekly, severity: high }`,
    );
    expect(ok.errors).toEqual([]);
    expect((ok.metrics[0] as StructuredMetricDefinition).anomalies).toEqual({
      enabled: true,
      grain: "hour",
      training_buckets: 336,
      detection_buckets: 10_000,
      sensitivity: 3.5,
      seasonality: "weekly",
      severity: "high",
    });
    expect((metric(`${BASE}\ntimestamp: t`).metrics[0] as StructuredMetricDefinition).anomalies).toBeUndefined();
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { grain: week }`)).toEqual(["anomalies.grain: expected one of hour|day"]);
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { detection_buckets: 10001 }`)).toEqual([
      "anomalies.detection_buckets: expected a whole number of buckets from 1 to 10000",
    ]);
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { training_buckets: 1.5 }`)[0]).toMatch(
      /^anomalies\.training_buckets: expected int/,
    );
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { seasonality: yearly }`)).toEqual([
      "anomalies.seasonality: expected one of auto|none|daily|weekly",
    ]);
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { severity: low }`)).toEqual(["anomalies.severity: expected one of medium|high"]);
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { sensitivty: 3 }`)).toEqual(["anomalies.sensitivty: unknown field"]);
    expect(messages(`${BASE}\nanomalies: { grain: day }`)).toEqual(["anomalies: needs a timestamp column (or enabled: false)"]);
    expect(messages(`${BASE}\nanomalies: { enabled: false }`)).toEqual([]);
  });

  it("reads holidays and planned exclusions, normalised, and names a bad one", () => {
    const messages = (body: string) => metric(body).errors.map((e) => e.message.replace('metrics/shop.yaml: metric "m": ', ""));
    const ok = metric(`${BASE}
timestamp: t
anomalies:
  holidays: de-by
  exclude:
    - { from: 2026-11-27, to: 2026-11-28, reason: Black Friday load test }
    - { from: "2026-12-01T06:00", to: "2026-12-01T09:30:00+01:00", reason: "  warehouse migration " }`);
    expect(ok.errors).toEqual([]);
    expect((ok.metrics[0] as StructuredMetricDefinition).anomalies).toEqual({
      holidays: "DE-BY",
      exclude: [
        { from: "2026-11-27T00:00:00.000Z", to: "2026-11-28T00:00:00.000Z", reason: "Black Friday load test" },
        { from: "2026-12-01T06:00:00.000Z", to: "2026-12-01T08:30:00.000Z", reason: "warehouse migration" },
      ],
    });
    expect((metric(`${BASE}\ntimestamp: t\nanomalies: { holidays: none }`).metrics[0] as StructuredMetricDefinition).anomalies).toEqual({
      holidays: null,
    });
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { holidays: XX }`)).toEqual([
      'anomalies.holidays: unknown holiday calendar "XX": expected an ISO 3166 country code (US, GB, DE), optionally with a subdivision (DE-BY), or none',
    ]);
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { holidays: US-ZZ }`)[0]).toMatch(
      /^anomalies\.holidays: unknown holiday calendar "US-ZZ"/,
    );
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { exclude: [{ from: 2026-02-30, to: 2026-03-02, reason: x }] }`)).toEqual([
      'anomalies.exclude[0].from: expected a date (2026-12-24) or a date and time (2026-12-24T06:00:00Z; UTC without an offset), got "2026-02-30"',
    ]);
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { exclude: [{ from: 2026-03-02, to: 2026-03-02, reason: x }] }`)).toEqual([
      "anomalies.exclude[0].to: must be after from (to is exclusive: one day is from 2026-12-25 to 2026-12-26)",
    ]);
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { exclude: [{ from: 2026-03-02, to: 2026-03-03 }] }`)[0]).toMatch(
      /^anomalies\.exclude\[0\]\.reason: /,
    );
    expect(messages(`${BASE}\ntimestamp: t\nanomalies: { exclude: [{ from: 2026-03-02, to: 2026-03-03, reason: x, why: y }] }`)).toEqual([
      "anomalies.exclude[0].why: unknown field",
    ]);
  });

  it("rejects unsafe filters with a clear message", () => {
    const problem = (filter: string) => metric(`${BASE}\nfilter: ${JSON.stringify(filter)}`).errors[0]?.message;
    expect(problem("a = 1; DROP TABLE x")).toContain("filter: must not contain ';'");
    expect(problem("a = 1 -- x")).toContain("filter: must not contain a '--' comment");
    expect(problem("a = 1 /* x */")).toContain("filter: must not contain a '/*' comment");
    expect(problem("status = 'open")).toContain("filter: has an unterminated ' quote");
    expect(problem("1) OR (1")).toContain("filter: has a ')' without a matching '('");
    expect(problem("(a = 1")).toContain("filter: has a '(' without a matching ')'");
    expect(problem("name = ')' AND (b IN (1, 2))")).toBeUndefined();
  });

  it("skips one bad metric and keeps the good ones in the same file", () => {
    const content = GOOD.replace(
      "  - name: order_count\n",
      "  - name: broken\n    table: nope\n    measures: [{ alias: r, function: Count }]\n  - name: order_count\n",
    );
    const catalog = one(content);
    expect(catalog.metrics.map((m) => m.name)).toEqual(["gross_revenue", "order_count", "revenue_per_order"]);
    expect(catalog.errors.map((e) => e.metric)).toEqual(["broken"]);
  });

  it("reports the second of two duplicate names, in sorted file order", () => {
    const dup = "metrics:\n  - name: order_count\n    table: shop.other\n    measures: [{ alias: n, function: Count }]\n";
    const catalog = parseCatalog([file("z.yaml", dup), file("a.yaml", GOOD)]);
    expect(catalog.metrics.map((m) => m.file)).toEqual(["metrics/a.yaml", "metrics/a.yaml", "metrics/a.yaml"]);
    expect(catalog.errors).toEqual([
      {
        metric: "order_count",
        file: "metrics/z.yaml",
        message: 'metrics/z.yaml: metric "order_count": name: duplicate metric name, already defined in metrics/a.yaml',
      },
    ]);
  });

  it("rejects derived metrics with missing, invalid or cyclic inputs", () => {
    const content = `metrics:
  - { name: bad, table: nope, measures: [{ alias: n, function: Count }] }
  - { name: d_missing, kind: derived, inputs: [ghost] }
  - { name: d_invalid, kind: derived, inputs: [bad] }
  - { name: c1, kind: derived, inputs: [c2] }
  - { name: c2, kind: derived, inputs: [c1] }
  - { name: on_cycle, kind: derived, inputs: [c1] }
  - { name: self, kind: derived, inputs: [self] }
`;
    const catalog = one(content);
    expect(catalog.metrics).toEqual([]);
    const byMetric = Object.fromEntries(catalog.errors.map((e) => [e.metric, e.message.replace(/^.*?": /, "")]));
    expect(byMetric).toMatchObject({
      d_missing: "inputs[0]: unknown metric ghost",
      d_invalid: "inputs[0]: metric bad is invalid (see its errors)",
      c1: "inputs: cycle c1 -> c2 -> c1",
      c2: "inputs: cycle c2 -> c1 -> c2",
      on_cycle: "inputs[0]: metric c1 is invalid (see its errors)",
      self: "inputs[0]: a metric cannot be its own input",
    });
  });

  it("is deterministic regardless of the input file order", () => {
    const files = [
      file(
        "b.yaml",
        GOOD.replace(/gross_revenue|order_count|revenue_per_order/g, (n) => `b_${n}`),
      ),
      file("a.yaml", GOOD),
    ];
    expect(parseCatalog(files)).toEqual(parseCatalog([...files].reverse()));
    expect(parseCatalog(files).metrics[0]!.name).toBe("gross_revenue");
  });
});
