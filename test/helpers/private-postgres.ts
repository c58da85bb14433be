// A PostgreSQL server of the test's own (the machine's PostgreSQL binaries, a fresh cluster in a
// temp directory on a free port), for tests that stop and start "their" store. Never the shared
// server on 5432. As root, the server runs as the `postgres` user (initdb refuses root).
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgresql:// URL of its `postgres` database (trust auth, user postgres) */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/** The newest /usr/lib/postgresql/<version>/bin with initdb, or MR_POSTGRES_BINDIR. */
export function postgresBinDir(): string | null {
  const explicit = process.env.MR_POSTGRES_BINDIR;
  if (explicit) return existsSync(path.join(explicit, "initdb")) ? explicit : null;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : null;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no PostgreSQL server binaries (initdb, pg_ctl) found; set MR_POSTGRES_BINDIR");
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(path.join(os.tmpdir(), "mr-private-pg-"));
  const data = path.join(dir, "data");
  const port = await freePort();
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args], { timeout: 60_000 })
      : run(path.join(bin, tool), args, { timeout: 60_000 });

  await pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const start = async () => {
    await pg("pg_ctl", [
      "-D",
      data,
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "start",
    ]);
  };
  const stop = async () => {
    await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  };
  await start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async dispose() {
      await stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
