// A MetricFlow project written for Snowflake (upper-case names) scanned on ClickHouse, which is
// case-sensitive, on both engines: a name that matches one column ignoring case is read as that
// column (its rules run and find the planted rows) with a warning naming both; a name that
// matches two columns is an error, and its checks say the column is missing.
import { describe, expect, it } from "vitest";
import { compilerStatusView } from "../../src/services/compiler-service.js";
import { uniqueDatabase, engineCases } from "../helpers/warehouses.js";
import { scanProject } from "./run-scan.js";

const PROJECT = `
semantic_models:
  - name: payments
    model: ref('payments')
    defaults: { agg_time_dimension: PAID_AT }
    entities:
      - { name: payment, type: primary, expr: PAYMENT_ID }
    dimensions:
      - { name: PAID_AT, type: time, type_params: { time_granularity: day } }
      - { name: METHOD, type: categorical }
    measures:
      - { name: payment_total, agg: sum, expr: AMOUNT }
metrics:
  - { name: payment_total, type: simple, type_params: { measure: payment_total } }
  - { name: card_payment_total, type: simple, type_params: { measure: payment_total }, filter: "{{ Dimension('payment__METHOD') }} = 'card'" }
`;

function statements(db: string): string[] {
  return [
    `CREATE DATABASE ${db}`,
    // Lower-case names where the YAML writes upper case; method twice (method and Method).
    `CREATE TABLE ${db}.payments (payment_id UInt64, paid_at DateTime, amount Nullable(Float64), method String, Method String) ENGINE = MergeTree ORDER BY payment_id`,
    `INSERT INTO ${db}.payments VALUES (1, now() - 3600, 10, 'card', 'card'), (2, now() - 3600, NULL, 'card', 'card'), (2, now() - 7200, 5, 'cash', 'cash')`,
  ];
}

describe.each(engineCases)("column names in another letter case ($name)", (engine) => {
  const db = uniqueDatabase("mr_case");
  const scan = scanProject(engine, { db, file: "payments.yml", project: PROJECT, statements });
  const result = (rule: string, metric = "payment_total") => scan.run.results.find((r) => r.rule === rule && r.metric === metric)!;

  it("reads a name that matches one column as that column: its rules run on the data", () => {
    expect(scan.snapshot.errors).toEqual([]);
    expect(result("primary_key_unique")).toMatchObject({ status: "failing", rows_affected: 1 });
    expect(result("measure_not_null")).toMatchObject({ status: "failing", rows_affected: 1 });
    expect(result("timestamp_not_future").status).toBe("passing");
  });

  it("warns naming both spellings", () => {
    const view = compilerStatusView(scan.snapshot, scan.run.findings);
    const warnings = view.warnings.map((w) => w.message);
    for (const [written, actual] of [
      ["PAYMENT_ID", "payment_id"],
      ["PAID_AT", "paid_at"],
      ["AMOUNT", "amount"],
    ])
      expect(warnings).toContain(
        `${db}.payments: ${written} is the warehouse's ${actual} (matched ignoring letter case; read as ${actual}) (payment_total, card_payment_total)`,
      );
  });

  it("makes a name that matches two columns an error, and guesses neither", () => {
    const view = compilerStatusView(scan.snapshot, scan.run.findings);
    // Both metrics read it: payment_total as a dimension, card_payment_total in its filter too.
    const message = `${db}.payments: METHOD matches Method and method ignoring letter case: ambiguous, not read (write the warehouse's spelling)`;
    expect(view.errors).toEqual(
      ["payment_total", "card_payment_total"].map((metric) => ({ metric, file: expect.stringMatching(/payments\.yml$/), message })),
    );
    // Its tests under the filter that reads it cannot run, and say which column is missing.
    const filtered = result("measure_not_null", "card_payment_total");
    expect(filtered.status).not.toBe("passing");
    expect(filtered.message).toMatch(/METHOD/);
  });
});
