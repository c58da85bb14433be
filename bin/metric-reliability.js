#!/usr/bin/env node
// The `metric-reliability` command (package.json "bin"; `npx metric-reliability` in a checkout,
// through the package's link to itself in devDependencies). In a checkout it runs the TypeScript
// source through tsx, so it needs no build and never runs a stale one; without the source or
// without tsx (a production install), the compiled dist/.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../src/cli/main.ts", import.meta.url);
const compiled = new URL("../dist/cli/main.js", import.meta.url);

async function loadCli() {
  const tsx = existsSync(source) ? await import("tsx/esm/api").catch(() => null) : null;
  if (tsx) {
    // The Prisma client is generated, not committed: make it on first use. Its output goes to
    // stderr, so that stdout stays the command's own (--json).
    execFileSync(process.execPath, [fileURLToPath(new URL("../prisma/ensure-client.mjs", import.meta.url))], {
      stdio: ["ignore", 2, 2],
    });
    tsx.register();
    return import(source.href);
  }
  if (existsSync(compiled)) return import(compiled.href);
  process.stderr.write("metric-reliability: dist/cli/main.js is missing: run `npm run build` first\n");
  process.exit(2);
}

const { runCli } = await loadCli();
await runCli(process.argv);
