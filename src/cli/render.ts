// Human output: tables (cli-table3) and a one-line progress indicator, for terminals.
// JSON output (--json) bypasses all of this.
import { styleText } from "node:util";
import Table from "cli-table3";
import type { CatalogError } from "../catalog/types.js";
import type { InferredTestView } from "../services/views.js";
import type { ScanReport } from "./verdict.js";

type Color = "green" | "yellow" | "red" | "gray" | "bold";

export interface Style {
  color: boolean;
}

/** Colour only on a terminal, and never with NO_COLOR set. */
export function styleFor(stream: NodeJS.WriteStream): Style {
  return { color: stream.isTTY === true && !process.env.NO_COLOR };
}

const paint = (style: Style, color: Color, text: string) => (style.color ? styleText(color, text) : text);

const STATUS_COLOR: Record<string, Color> = { healthy: "green", degraded: "yellow", unreliable: "red", unknown: "gray" };

function table(head: string[], style: Style): Table.Table {
  // cli-table3 colours its header red by default; plain when not a terminal.
  // compact: no rule between rows, so a long listing stays readable.
  return new Table({ head, style: { head: style.color ? ["bold"] : [], border: style.color ? ["gray"] : [], compact: true } });
}

export function renderScanReport(report: ScanReport, style: Style): string {
  const t = table(["metric", "status", "safe to use", "tests", "problems"], style);
  for (const m of report.metrics) {
    const tests = m.tests ? `${m.tests.passing}/${m.tests.total} passing` : "";
    const problems = (m.failing_tests ?? []).map((r) => `${r.status === "failing" ? "✗" : "!"} ${r.rule}: ${r.message}`).join("\n");
    t.push([
      m.metric_name,
      paint(style, STATUS_COLOR[m.status] ?? "bold", m.status),
      m.safe_to_use ? "yes" : paint(style, "red", "no"),
      tests,
      problems,
    ]);
  }
  const unsafe = report.metrics.filter((m) => !m.safe_to_use).map((m) => m.metric_name);
  const verdict = unsafe.length === 0 ? paint(style, "green", "safe to use") : paint(style, "red", `NOT safe to use: ${unsafe.join(", ")}`);
  return `${t.toString()}\n${verdict} (source: ${report.source})\n`;
}

export function renderTests(tests: readonly InferredTestView[], style: Style): string {
  const t = table(["metric", "rule", "severity", "confidence", "check"], style);
  for (const test of tests) t.push([test.metric, test.rule, test.severity, test.confidence, test.check]);
  return `${t.toString()}\n${tests.length} inferred tests\n`;
}

export function renderCatalogErrors(errors: readonly CatalogError[], style: Style): string {
  return errors.map((e) => `${paint(style, "red", "error")} ${e.file}${e.metric ? ` (${e.metric})` : ""}: ${e.message}\n`).join("");
}

/** Rewrites one status line on a terminal; does nothing elsewhere (logs and pipes stay clean). */
export function progressLine(stream: NodeJS.WriteStream): { update(text: string): void; done(): void } {
  if (!stream.isTTY) return { update() {}, done() {} };
  let shown = false;
  return {
    update(text) {
      stream.write(`\r\x1b[2K${text}`);
      shown = true;
    },
    done() {
      if (shown) stream.write("\r\x1b[2K");
      shown = false;
    },
  };
}
