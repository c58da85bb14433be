// Lints the OpenAPI document the daemon serves (GET /v1/openapi.json, built here by the same
// buildOpenApiDocument) with Redocly's recommended rules, and fails on any error OR warning:
// a warning is what a client generator or a new user trips on. Needs no network (telemetry and
// the update check are off; CI runs it under `unshare -n` to be sure).
//
//   tsx .ci/lint-openapi.ts [--out openapi.json]   (npm run lint:openapi)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument } from "../src/api/openapi.js";

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}
interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Problem[];
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outIndex = process.argv.indexOf("--out");
const keep = outIndex > 0 ? process.argv[outIndex + 1] : undefined;
const dir = keep ? null : mkdtempSync(path.join(os.tmpdir(), "mr-openapi-"));
const file = keep ? path.resolve(keep) : path.join(dir!, "openapi.json");

/** 0 when Redocly reports no error and no warning. */
function lintDocument(): number {
  const doc = buildOpenApiDocument();
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  const operations = Object.values(doc.paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0);
  const cli = path.join(root, "node_modules", "@redocly", "cli", "bin", "cli.js");
  const lint = spawnSync(process.execPath, [cli, "lint", "--extends=recommended", "--format=json", file], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
  });
  let report: LintReport;
  try {
    report = JSON.parse(lint.stdout) as LintReport;
  } catch {
    process.stderr.write(`lint-openapi: redocly gave no report (exit ${lint.status}):\n${lint.stdout}${lint.stderr}\n`);
    return 1;
  }
  const { errors, warnings } = report.totals;
  for (const p of report.problems) {
    process.stderr.write(`${p.severity} ${p.ruleId}: ${p.message} (at ${p.location?.[0]?.pointer ?? "?"})\n`);
  }
  const summary = `OpenAPI document (${operations} operations): Redocly recommended lint, ${errors} errors, ${warnings} warnings`;
  if (errors > 0 || warnings > 0 || lint.status !== 0) {
    process.stderr.write(`lint-openapi: ${summary}; both must be 0 (see https://redocly.com/docs/cli/rules)\n`);
    return 1;
  }
  process.stdout.write(`lint-openapi: ${summary}${keep ? `; written to ${file}` : ""}\n`);
  return 0;
}

let code: number;
try {
  code = lintDocument();
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
