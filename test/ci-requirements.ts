// vitest globalSetup: with CI set, a run that lost its servers fails at once instead of passing
// with the server suites skipped (or never created). Outside CI, missing servers only narrow
// the run to the embedded engines.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { postgresBinDir } from "./helpers/private-postgres.js";

const onPath = (command: string) => spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
// 18.16's clickhouse-server has no --version; look for the binary where .ci/start-clickhouse.sh does.
const hasClickHouseServer = () =>
  spawnSync("sh", ["-c", "command -v clickhouse-server"], { stdio: "ignore" }).status === 0 ||
  existsSync("/usr/sbin/clickhouse-server") ||
  existsSync("/usr/bin/clickhouse-server");

export function ciMissing(env: NodeJS.ProcessEnv = process.env): string[] {
  const missing: string[] = [];
  if (!env.CLICKHOUSE_URL) missing.push("CLICKHOUSE_URL (a ClickHouse server)");
  if (!env.DATABASE_URL) missing.push("DATABASE_URL (a PostgreSQL server)");
  if (!hasClickHouseServer()) missing.push("clickhouse-server (tests start private servers)");
  if (!postgresBinDir()) missing.push("PostgreSQL server binaries (initdb, pg_ctl; or MR_POSTGRES_BINDIR)");
  if (!onPath("prometheus")) missing.push("prometheus (the real-Prometheus alert test)");
  if (!onPath("prometheus-alertmanager")) missing.push("prometheus-alertmanager (the inhibition rule's test)");
  return missing;
}

export default function setup(): void {
  if (!process.env.CI) return;
  const missing = ciMissing();
  if (missing.length > 0) {
    throw new Error(
      `CI is set, so no suite may skip, but these are missing: ${missing.join("; ")}. Provide them (see .ci/run) or unset CI.`,
    );
  }
}
