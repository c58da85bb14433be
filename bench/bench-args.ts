// Options of `npm run bench:scan -- [flags]`; every flag also has an environment variable.

export interface BenchOptions {
  wide: boolean;
  reps: number;
  concurrency: number;
  /** standard mode: rows of the orders fact table */
  rows: number;
  /** wide mode */
  tables: number;
  metrics: number;
  tableRows: number;
  /** keep the bench database (for inspection) instead of dropping it */
  keep: boolean;
  timeoutSeconds: number;
}

export const USAGE = `usage: npm run bench:scan -- [--wide] [options]
  standard mode: 5M-row orders fact + 5 more tables, 60 metrics; times
    (a) the service's scan (executeScan), (b) one query per test (dbt style),
    (c) a hand-written one-pass aggregate per table; prints medians, a/c and b/a.
  --wide: 1000 metrics over 100 tables; counts warehouse queries (must equal the tables scanned).
options (environment variable in brackets):
  --reps N          timed repetitions, median reported [BENCH_REPS] (5)
  --concurrency N   concurrent queries for every method [BENCH_CONCURRENCY, else SCAN_CONCURRENCY] (4)
  --rows N          orders fact rows [BENCH_ROWS] (5000000)
  --tables N        wide: tables [BENCH_WIDE_TABLES] (100)
  --metrics N       wide: metrics [BENCH_WIDE_METRICS] (1000)
  --table-rows N    wide: rows per table [BENCH_WIDE_ROWS] (20000)
  --timeout S       per-query max_execution_time [BENCH_TIMEOUT_SECONDS] (600)
  --keep            do not drop the bench database at the end
warehouse: CLICKHOUSE_URL (+ CLICKHOUSE_USER/PASSWORD) = server, unset = embedded chdb.`;

const NUMERIC: Record<string, { env: string[]; key: keyof BenchOptions; min: number }> = {
  "--reps": { env: ["BENCH_REPS"], key: "reps", min: 1 },
  "--concurrency": { env: ["BENCH_CONCURRENCY", "SCAN_CONCURRENCY"], key: "concurrency", min: 1 },
  "--rows": { env: ["BENCH_ROWS"], key: "rows", min: 1000 },
  "--tables": { env: ["BENCH_WIDE_TABLES"], key: "tables", min: 2 },
  "--metrics": { env: ["BENCH_WIDE_METRICS"], key: "metrics", min: 1 },
  "--table-rows": { env: ["BENCH_WIDE_ROWS"], key: "tableRows", min: 10 },
  "--timeout": { env: ["BENCH_TIMEOUT_SECONDS"], key: "timeoutSeconds", min: 1 },
};

/** A bad flag or variable: reported as its message, without a stack. */
export class UsageError extends Error {
  override name = "UsageError";
}

function integer(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`${flag}: expected an integer >= ${min}, got ${JSON.stringify(text)}`);
  return value;
}

export function parseBenchArgs(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | "help" {
  const options: BenchOptions = {
    wide: false,
    reps: 5,
    concurrency: 4,
    rows: 5_000_000,
    tables: 100,
    metrics: 1000,
    tableRows: 20_000,
    keep: false,
    timeoutSeconds: 600,
  };
  const set = (flag: string, text: string, label: string = flag) => {
    const spec = NUMERIC[flag]!;
    (options as unknown as Record<string, number>)[spec.key] = integer(label, text, spec.min);
  };
  for (const [flag, spec] of Object.entries(NUMERIC)) {
    const name = spec.env.find((candidate) => env[candidate] !== undefined && env[candidate] !== "");
    if (name !== undefined) set(flag, env[name]!, name);
  }
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=") ? (arg.split("=", 2) as [string, string]) : [arg, undefined];
    if (flag === "--help" || flag === "-h") return "help";
    if (flag === "--wide") options.wide = true;
    else if (flag === "--keep") options.keep = true;
    else if (NUMERIC[flag]) {
      const value = inline ?? argv[(i += 1)];
      if (value === undefined) throw new UsageError(`${flag}: missing value`);
      set(flag, value);
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)} (see --help)`);
  }
  return options;
}
