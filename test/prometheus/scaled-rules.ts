// The project's alert rules (the chart's files/alerts.yml, the one copy) with time compressed for a
// test: every `for:` and every range window `[30m]` is divided by `factor` (at least 1 s), and the
// groups evaluate every second. Expressions, labels and thresholds are otherwise unchanged.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";

export const RULES_FILE = path.resolve(import.meta.dirname, "../../helm/metric-reliability/files/alerts.yml");

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** A Prometheus duration divided by `factor`, in whole seconds (at least 1). */
export function scaleDuration(duration: string, factor: number): string {
  const parts = [...duration.matchAll(/(\d+)([smhdw])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== duration) throw new Error(`cannot scale duration ${duration}`);
  const seconds = parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_SECONDS[p[2]!]!, 0);
  return `${Math.max(1, Math.ceil(seconds / factor))}s`;
}

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
}

export function scaledRules(factor: number, text: string = readFileSync(RULES_FILE, "utf8")): string {
  const doc = parse(text) as { groups: { name: string; interval?: string; rules: Rule[] }[] };
  for (const group of doc.groups) {
    group.interval = "1s";
    for (const rule of group.rules) {
      if (rule.for) rule.for = scaleDuration(rule.for, factor);
      rule.expr = rule.expr.replace(/\[(\w+)\]/g, (_m, d: string) => `[${scaleDuration(d, factor)}]`);
    }
  }
  return stringify(doc);
}
