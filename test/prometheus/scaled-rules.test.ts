import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { scaleDuration, scaledRules } from "./scaled-rules.js";

describe("scaledRules", () => {
  it("divides durations, rounding up to whole seconds, at least 1 s", () => {
    expect(scaleDuration("5m", 120)).toBe("3s");
    expect(scaleDuration("30m", 120)).toBe("15s");
    expect(scaleDuration("1h30m", 60)).toBe("90s");
    expect(scaleDuration("1s", 120)).toBe("1s");
    expect(() => scaleDuration("5 minutes", 2)).toThrow(/cannot scale/);
  });

  it("changes only for:, range windows and the evaluation interval of the project's rules", () => {
    const doc = parse(scaledRules(120)) as {
      groups: { interval: string; rules: { alert: string; for?: string; expr: string; labels: object }[] }[];
    };
    const rules = doc.groups[0]!.rules;
    expect(doc.groups[0]!.interval).toBe("1s");
    expect(rules.find((r) => r.alert === "MetricUnreliable")).toMatchObject({ for: "3s", labels: { severity: "critical" } });
    expect(rules.find((r) => r.alert === "ReliabilityScansFailing")!.expr).toContain(
      'increase(metric_reliability_scans_total{outcome="failed"}[15s])',
    );
  });
});
