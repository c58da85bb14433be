// A ClickHouse server of the test's own (Debian's clickhouse-server, the CI version), on free
// ports beside the shared one, for tests that stop, crash or restart "their" warehouse. It is
// started by the same script CI uses (.ci/start-clickhouse.sh), so it is configured the same way.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, "../../.ci/start-clickhouse.sh");

export interface PrivateClickHouse {
  url: string;
  /** its config and data directory (config.xml, users.xml, users.d/, data/) */
  dir: string;
  /** SIGKILL: a crash, connections die mid-query */
  kill(): Promise<void>;
  /** starts it again on the same ports and data directory */
  start(): Promise<void>;
  /** stops it for good and removes its data */
  dispose(): Promise<void>;
}

async function waitUntilGone(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`clickhouse pid ${pid} did not exit`);
}

export async function startPrivateClickHouse(): Promise<PrivateClickHouse> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mr-private-ch-"));
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    MR_CLICKHOUSE_DIR: dir,
    MR_CLICKHOUSE_HTTP_PORT: String(httpPort),
    MR_CLICKHOUSE_TCP_PORT: String(tcpPort),
  };
  const start = async () => {
    await run("bash", [SCRIPT], { env, timeout: 90_000 });
  };
  const kill = async () => {
    const pid = Number((await readFile(path.join(dir, "server.pid"), "utf8")).trim());
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      return; // already gone
    }
    await waitUntilGone(pid);
  };
  await start();
  return {
    url: `http://127.0.0.1:${httpPort}`,
    dir,
    kill,
    start,
    async dispose() {
      await kill().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
