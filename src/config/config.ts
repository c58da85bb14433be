// Configuration is parsed once, at start, from the environment. A bad value stops the
// daemon with a message that names the variable.
import path from "node:path";
import { fileURLToPath } from "node:url";
import cron from "node-cron";
import { z } from "zod";
import { exclusionsSchema, holidaysSchema } from "../catalog/anomalies-schema.js";
import { ANOMALY_GRAINS, ANOMALY_SEASONALITIES, MAX_ANOMALY_BUCKETS } from "../catalog/types.js";
import type { AnomalyDefaults } from "../compile/anomaly-settings.js";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DEMO_METRICS_DIR = path.join(PACKAGE_ROOT, "demo", "metrics");

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"], { error: "expected true or false" })
  .transform((v) => v === "true" || v === "1" || v === "yes");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const keyList = z
  .string()
  .transform((v) =>
    v
      .split(",")
      .map((k) => k.trim())
      .filter((k) => k.length > 0),
  )
  .refine((keys) => keys.every((k) => k.length >= 16), { message: "every key must be at least 16 characters" });
/** A JSON value in a variable, then checked by `schema`. */
const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.issues.push({ code: "custom", message: "expected JSON", input: text });
        return z.NEVER;
      }
    })
    .pipe(schema);
const url = z.url({ protocol: /^https?$/, error: "expected an http(s) URL" });

const EnvSchema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  METRICS_DIR: z.string().min(1).default(DEMO_METRICS_DIR),
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "expected a postgresql:// URL")
    .optional(),
  CLICKHOUSE_URL: url.optional(),
  CLICKHOUSE_USER: z.string().optional(),
  CLICKHOUSE_PASSWORD: z.string().optional(),
  /** log_queries=1 on the daemon's queries, so system.query_log accounts for what scans read */
  CLICKHOUSE_LOG_QUERIES: bool.default(false),
  SCAN_SCHEDULE: z
    .string()
    .default("*/15 * * * *")
    .refine((s) => s === "off" || cron.validate(s), { message: "expected a cron expression or off" }),
  SCAN_ON_START: bool.default(true),
  SCAN_CONCURRENCY: int(1, 64).default(4),
  /** checks on MergeTree tables whose parts did not change since the last pass keep its results */
  SCAN_INCREMENTAL: bool.default(true),
  /** refuse to start when the loaded catalogue leaves a scan no room in the heap (health/memory-budget.ts) */
  MEMORY_CHECK: bool.default(true),
  QUERY_TIMEOUT_SECONDS: int(1, 3600).default(60),
  MAX_QUERY_SIZE: int(1024, 1 << 30).default(262144),
  HISTORY_RETENTION_DAYS: int(1, 3650).default(90),
  /** how long one scan's store write (one transaction) may take */
  STORE_TRANSACTION_TIMEOUT_SECONDS: int(5, 3600).default(120),
  API_KEYS: keyList.default([]),
  API_READONLY_KEYS: keyList.default([]),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SHUTDOWN_TIMEOUT_SECONDS: int(1, 600).default(25),
  METRICFLOW_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "expected a ClickHouse database name")
    .optional(),
  // HTTP limits (see README "Limits").
  POST_RATE_LIMIT: int(0, 1_000_000).default(30),
  POST_RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(60),
  REQUEST_BODY_LIMIT_BYTES: int(1, 10 * 1024 * 1024).default(16_384),
  REQUEST_TIMEOUT_SECONDS: int(1, 3600).default(30),
  SCAN_WAIT_TIMEOUT_SECONDS: int(1, 86_400).default(600),
  /** bytes of JSON one request may be answered with (a tRPC batch: its calls together) */
  MAX_ANSWER_BYTES: int(1024, 1 << 30).default(4 * 1024 * 1024),
  /** wrong API keys per client per window, at /login, /v1, /trpc and /metrics, before 429; 0: no limit */
  AUTH_FAILURE_LIMIT: int(0, 1_000_000).default(10),
  AUTH_FAILURE_WINDOW_SECONDS: int(1, 86_400).default(60),
  /** when set, /metrics needs Authorization: Bearer <METRICS_TOKEN> */
  METRICS_TOKEN: z.string().min(16, "expected at least 16 characters").optional(),
  /** when set, only these Host names are answered (comma-separated; `.example.com` for a domain) */
  ALLOWED_HOSTS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h.length > 0),
    )
    .refine((hosts) => hosts.every((h) => /^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(h)), {
      message: "expected comma-separated host names (without port), e.g. reliability.example.com,.internal",
    })
    .optional(),
  /** express' "trust proxy": true, a number of proxy hops, or comma-separated addresses/subnets */
  TRUST_PROXY: z
    .string()
    .transform((v): boolean | number | string => (v === "true" ? true : v === "false" ? false : /^\d+$/.test(v) ? Number(v) : v))
    .optional(),
  // Anomaly rules' defaults; a metric's `anomalies:` block overrides each (see README "Anomalies").
  ANOMALY_DETECTION: bool.default(true),
  ANOMALY_GRAIN: z.enum(ANOMALY_GRAINS, { error: `expected one of ${ANOMALY_GRAINS.join("|")}` }).default("day"),
  /** unset: the grain's default (84 days, 336 hours) */
  ANOMALY_TRAINING_BUCKETS: int(1, MAX_ANOMALY_BUCKETS).optional(),
  /** unset: 2 */
  ANOMALY_DETECTION_BUCKETS: int(1, MAX_ANOMALY_BUCKETS).optional(),
  /** unset: each rule's calibrated default (series 2.85 by day, 3 by hour; freshness 4) */
  ANOMALY_SENSITIVITY: z.coerce.number().min(0.5).max(20).optional(),
  ANOMALY_SEASONALITY: z.enum(ANOMALY_SEASONALITIES, { error: `expected one of ${ANOMALY_SEASONALITIES.join("|")}` }).default("auto"),
  /** e.g. US or DE-BY: that calendar's public holidays neither train nor alarm (a metric's `holidays:` overrides) */
  ANOMALY_HOLIDAYS: holidaysSchema.optional(),
  /** JSON [{"from":"2026-12-24","to":"2026-12-27","reason":"warehouse migration"}]: for every metric, before its own `exclude:` */
  ANOMALY_EXCLUDE: json(exclusionsSchema).optional(),
});

export interface DatasourceConfig {
  name: string;
  url: string;
  username?: string;
  password?: string;
}

export type Config = Omit<
  z.infer<typeof EnvSchema>,
  "CLICKHOUSE_URL" | "CLICKHOUSE_USER" | "CLICKHOUSE_PASSWORD" | "METRICFLOW_DATABASE"
> & {
  /** empty: the embedded engine serves the "default" datasource */
  datasources: DatasourceConfig[];
  /** database of MetricFlow `ref('x')` models and `$source_schema`: set, or the connection's database, or "default" */
  METRICFLOW_DATABASE: string;
  /** the ANOMALY_* variables as the compile stage takes them */
  anomalyDefaults: AnomalyDefaults;
};

/** The database a ClickHouse URL selects (`/db` path or `?database=db`), if any. */
export function urlDatabase(url: string | undefined): string | null {
  if (!url) return null;
  const parsed = new URL(url);
  const name = parsed.searchParams.get("database") ?? decodeURIComponent(parsed.pathname.replace(/^\/+|\/+$/g, ""));
  return /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name) ? name : null;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

// CLICKHOUSE_<NAME>_URL names further datasources, e.g. CLICKHOUSE_FINANCE_URL -> "finance".
const NAMED_URL = /^CLICKHOUSE_([A-Z][A-Z0-9_]*)_URL$/;

function namedDatasources(env: NodeJS.ProcessEnv): DatasourceConfig[] {
  const out: DatasourceConfig[] = [];
  for (const [key, value] of Object.entries(env)) {
    const match = NAMED_URL.exec(key);
    if (!match || value === undefined || value === "") continue;
    const upper = match[1]!;
    const parsed = url.safeParse(value);
    if (!parsed.success) throw new ConfigError(`${key}: expected an http(s) URL`);
    out.push({
      name: upper.toLowerCase(),
      url: parsed.data,
      username: env[`CLICKHOUSE_${upper}_USER`],
      password: env[`CLICKHOUSE_${upper}_PASSWORD`],
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset" (Helm and compose often render empty values).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const { CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD, METRICFLOW_DATABASE, ...rest } = parsed.data;
  const datasources = namedDatasources(present).filter((d) => d.name !== "default");
  if (CLICKHOUSE_URL) {
    datasources.unshift({ name: "default", url: CLICKHOUSE_URL, username: CLICKHOUSE_USER, password: CLICKHOUSE_PASSWORD });
  }
  const metricflowDatabase = METRICFLOW_DATABASE ?? urlDatabase(CLICKHOUSE_URL) ?? "default";
  return {
    ...rest,
    anomalyDefaults: {
      enabled: rest.ANOMALY_DETECTION,
      grain: rest.ANOMALY_GRAIN,
      training_buckets: rest.ANOMALY_TRAINING_BUCKETS ?? null,
      detection_buckets: rest.ANOMALY_DETECTION_BUCKETS ?? null,
      sensitivity: rest.ANOMALY_SENSITIVITY ?? null,
      seasonality: rest.ANOMALY_SEASONALITY,
      holidays: rest.ANOMALY_HOLIDAYS ?? null,
      exclude: rest.ANOMALY_EXCLUDE ?? [],
    },
    DATA_DIR: path.resolve(rest.DATA_DIR),
    METRICS_DIR: path.resolve(rest.METRICS_DIR),
    METRICFLOW_DATABASE: metricflowDatabase,
    datasources,
  };
}
