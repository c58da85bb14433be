// Modules of this folder that run as a thread or a process of their own (the embedded database's
// worker, its initdb). Compiled, that is the .js file next to this one; from source (tsx, vitest)
// it is the .ts file, loaded through tsx, which a new thread or process does not inherit on Node 20.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Worker, type WorkerOptions } from "node:worker_threads";

const fromSource = import.meta.url.endsWith(".ts");
const entryUrl = (name: string) => new URL(`./${name}${fromSource ? ".ts" : ".js"}`, import.meta.url);

/** A worker thread running `./name` of this folder. */
export function startThread(name: string, options: WorkerOptions): Worker {
  if (!fromSource) return new Worker(entryUrl(name), options);
  // A data: URL module registers tsx in the new thread first, then imports the TypeScript entry.
  const boot = `const { register } = await import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}); register(); await import(${JSON.stringify(entryUrl(name).href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), options);
}

const run = promisify(execFile);

/** Runs `./name` of this folder as a child process to its end; rejects with its stderr when it fails. */
export async function runProcess(name: string, args: string[], timeoutMs: number): Promise<void> {
  const loader = fromSource ? ["--import", import.meta.resolve("tsx")] : [];
  try {
    await run(process.execPath, [...loader, fileURLToPath(entryUrl(name)), ...args], { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 });
  } catch (error) {
    const { stderr, killed } = error as { stderr?: string; killed?: boolean };
    const detail = killed ? `did not finish within ${timeoutMs / 1000} s` : (stderr?.trim().split("\n").slice(-3).join(" ") ?? "");
    throw new Error(`${name} failed: ${detail || (error as Error).message}`, { cause: error });
  }
}
