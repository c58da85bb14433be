import { describe, expect, it } from "vitest";
import { ConfigError, DEMO_METRICS_DIR, loadConfig } from "../../src/config/config.js";

describe("loadConfig", () => {
  it("applies the documented defaults on an empty environment", () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.METRICS_DIR).toBe(DEMO_METRICS_DIR);
    expect(config.SCAN_SCHEDULE).toBe("*/15 * * * *");
    expect(config.SCAN_ON_START).toBe(true);
    expect(config.SCAN_CONCURRENCY).toBe(4);
    expect(config.QUERY_TIMEOUT_SECONDS).toBe(60);
    expect(config.LOG_LEVEL).toBe("info");
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.datasources).toEqual([]);
    expect(config.API_KEYS).toEqual([]);
    expect(config.POST_RATE_LIMIT).toBe(30);
    expect(config.POST_RATE_LIMIT_WINDOW_SECONDS).toBe(60);
    expect(config.REQUEST_BODY_LIMIT_BYTES).toBe(16_384);
    expect(config.REQUEST_TIMEOUT_SECONDS).toBe(30);
    expect(config.SCAN_WAIT_TIMEOUT_SECONDS).toBe(600);
    expect(config.SCAN_INCREMENTAL).toBe(true);
    expect(config.CLICKHOUSE_LOG_QUERIES).toBe(false);
  });

  it("SCAN_INCREMENTAL=false turns incremental scans off; CLICKHOUSE_LOG_QUERIES turns query logging on", () => {
    expect(loadConfig({ SCAN_INCREMENTAL: "false" }).SCAN_INCREMENTAL).toBe(false);
    expect(loadConfig({ CLICKHOUSE_LOG_QUERIES: "true" }).CLICKHOUSE_LOG_QUERIES).toBe(true);
    expect(() => loadConfig({ SCAN_INCREMENTAL: "sometimes" })).toThrow(/SCAN_INCREMENTAL: expected true or false/);
  });

  it("METRICFLOW_DATABASE: set, else the ClickHouse connection's database, else default", () => {
    expect(loadConfig({}).METRICFLOW_DATABASE).toBe("default");
    expect(loadConfig({ CLICKHOUSE_URL: "http://ch:8123" }).METRICFLOW_DATABASE).toBe("default");
    expect(loadConfig({ CLICKHOUSE_URL: "http://ch:8123/analytics" }).METRICFLOW_DATABASE).toBe("analytics");
    expect(loadConfig({ CLICKHOUSE_URL: "http://ch:8123/?database=marts" }).METRICFLOW_DATABASE).toBe("marts");
    expect(loadConfig({ CLICKHOUSE_URL: "http://ch:8123/analytics", METRICFLOW_DATABASE: "dbt_prod" }).METRICFLOW_DATABASE).toBe(
      "dbt_prod",
    );
    expect(() => loadConfig({ METRICFLOW_DATABASE: "bad-name" })).toThrow(/METRICFLOW_DATABASE: expected a ClickHouse database name/);
  });

  it("ANOMALY_*: the anomaly rules' defaults, the grain's spans when unset", () => {
    expect(loadConfig({}).anomalyDefaults).toEqual({
      enabled: true,
      grain: "day",
      training_buckets: null,
      detection_buckets: null,
      sensitivity: null,
      seasonality: "auto",
      holidays: null,
      exclude: [],
    });
    const set = loadConfig({
      ANOMALY_DETECTION: "false",
      ANOMALY_GRAIN: "hour",
      ANOMALY_TRAINING_BUCKETS: "336",
      ANOMALY_DETECTION_BUCKETS: "10000",
      ANOMALY_SENSITIVITY: "4.5",
      ANOMALY_SEASONALITY: "daily",
    });
    expect(set.anomalyDefaults).toEqual({
      enabled: false,
      grain: "hour",
      training_buckets: 336,
      detection_buckets: 10_000,
      sensitivity: 4.5,
      seasonality: "daily",
      holidays: null,
      exclude: [],
    });
    expect(() => loadConfig({ ANOMALY_GRAIN: "week" })).toThrow(/ANOMALY_GRAIN: expected one of hour\|day/);
    expect(() => loadConfig({ ANOMALY_DETECTION_BUCKETS: "10001" })).toThrow(/ANOMALY_DETECTION_BUCKETS/);
    expect(() => loadConfig({ ANOMALY_SENSITIVITY: "high" })).toThrow(/ANOMALY_SENSITIVITY/);
    expect(() => loadConfig({ ANOMALY_SEASONALITY: "yearly" })).toThrow(/ANOMALY_SEASONALITY/);
  });

  it("ANOMALY_HOLIDAYS and ANOMALY_EXCLUDE: a holiday calendar and JSON exclusions, normalised", () => {
    const set = loadConfig({
      ANOMALY_HOLIDAYS: "de-by",
      ANOMALY_EXCLUDE: '[{"from":"2026-12-24","to":"2026-12-27T06:00+01:00","reason":"warehouse migration"}]',
    }).anomalyDefaults;
    expect(set.holidays).toBe("DE-BY");
    expect(set.exclude).toEqual([{ from: "2026-12-24T00:00:00.000Z", to: "2026-12-27T05:00:00.000Z", reason: "warehouse migration" }]);
    expect(loadConfig({ ANOMALY_HOLIDAYS: "none" }).anomalyDefaults.holidays).toBeNull();
    expect(() => loadConfig({ ANOMALY_HOLIDAYS: "XX" })).toThrow(/ANOMALY_HOLIDAYS: unknown holiday calendar "XX"/);
    expect(() => loadConfig({ ANOMALY_HOLIDAYS: "US-ZZ" })).toThrow(/ANOMALY_HOLIDAYS: unknown holiday calendar/);
    expect(() => loadConfig({ ANOMALY_EXCLUDE: "[{from:" })).toThrow(/ANOMALY_EXCLUDE: expected JSON/);
    expect(() => loadConfig({ ANOMALY_EXCLUDE: '[{"from":"2026-02-30","to":"2026-03-02","reason":"x"}]' })).toThrow(
      /ANOMALY_EXCLUDE\.0\.from: expected a date .*got "2026-02-30"/,
    );
    expect(() => loadConfig({ ANOMALY_EXCLUDE: '[{"from":"2026-03-02","to":"2026-03-02","reason":"x"}]' })).toThrow(
      /ANOMALY_EXCLUDE\.0\.to: must be after from/,
    );
    expect(() => loadConfig({ ANOMALY_EXCLUDE: '[{"from":"2026-03-02","to":"2026-03-03"}]' })).toThrow(/ANOMALY_EXCLUDE\.0\.reason/);
    expect(() => loadConfig({ ANOMALY_EXCLUDE: '{"from":"2026-03-02"}' })).toThrow(/ANOMALY_EXCLUDE: /);
  });

  it("the request limits: answer size, wrong-key throttle, metrics token, allowed hosts, trusted proxies", () => {
    const defaults = loadConfig({});
    expect(defaults.MAX_ANSWER_BYTES).toBe(4 * 1024 * 1024);
    expect(defaults.AUTH_FAILURE_LIMIT).toBe(10);
    expect(defaults.AUTH_FAILURE_WINDOW_SECONDS).toBe(60);
    expect(defaults.METRICS_TOKEN).toBeUndefined();
    expect(defaults.ALLOWED_HOSTS).toBeUndefined();
    expect(defaults.TRUST_PROXY).toBeUndefined();
    const set = loadConfig({
      ALLOWED_HOSTS: " Reliability.Example.com, .internal ",
      TRUST_PROXY: "1",
      METRICS_TOKEN: "metrics-token-0123456789",
      AUTH_FAILURE_LIMIT: "0",
    });
    expect(set.ALLOWED_HOSTS).toEqual(["reliability.example.com", ".internal"]);
    expect(set.TRUST_PROXY).toBe(1);
    expect(set.AUTH_FAILURE_LIMIT).toBe(0);
    expect(loadConfig({ TRUST_PROXY: "true" }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "loopback, 10.0.0.0/8" }).TRUST_PROXY).toBe("loopback, 10.0.0.0/8");
    expect(() => loadConfig({ ALLOWED_HOSTS: "evil.example:8080" })).toThrow(/ALLOWED_HOSTS: expected comma-separated host names/);
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN: expected at least 16 characters/);
    expect(() => loadConfig({ MAX_ANSWER_BYTES: "10" })).toThrow(/MAX_ANSWER_BYTES/);
  });

  it("treats empty strings as unset", () => {
    expect(loadConfig({ PORT: "", CLICKHOUSE_URL: "" }).PORT).toBe(8080);
  });

  it("names the bad variable", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => loadConfig({ SCAN_SCHEDULE: "every minute" })).toThrow(/SCAN_SCHEDULE: expected a cron expression/);
    expect(() => loadConfig({ SCAN_ON_START: "maybe" })).toThrow(/SCAN_ON_START/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ API_KEYS: "short" })).toThrow(/API_KEYS: every key must be at least 16 characters/);
    expect(() => loadConfig({ CLICKHOUSE_FINANCE_URL: "not a url" })).toThrow(/CLICKHOUSE_FINANCE_URL/);
    expect(() => loadConfig({ POST_RATE_LIMIT: "-1" })).toThrow(/POST_RATE_LIMIT/);
    expect(() => loadConfig({ REQUEST_BODY_LIMIT_BYTES: "16kb" })).toThrow(/REQUEST_BODY_LIMIT_BYTES/);
    expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: "0" })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
    expect(loadConfig({ POST_RATE_LIMIT: "0" }).POST_RATE_LIMIT).toBe(0);
  });

  it("builds the datasource list from CLICKHOUSE_URL and CLICKHOUSE_<NAME>_URL", () => {
    const config = loadConfig({
      CLICKHOUSE_URL: "http://ch:8123",
      CLICKHOUSE_USER: "reader",
      CLICKHOUSE_PASSWORD: "secret",
      CLICKHOUSE_FINANCE_URL: "https://finance-ch:8443",
      CLICKHOUSE_FINANCE_USER: "fin",
    });
    expect(config.datasources).toEqual([
      { name: "default", url: "http://ch:8123", username: "reader", password: "secret" },
      { name: "finance", url: "https://finance-ch:8443", username: "fin", password: undefined },
    ]);
  });

  it("splits key lists and accepts off as a schedule", () => {
    const config = loadConfig({ API_KEYS: "a".repeat(16) + ", " + "b".repeat(20), SCAN_SCHEDULE: "off", SCAN_ON_START: "false" });
    expect(config.API_KEYS).toEqual(["a".repeat(16), "b".repeat(20)]);
    expect(config.SCAN_SCHEDULE).toBe("off");
    expect(config.SCAN_ON_START).toBe(false);
  });
});
