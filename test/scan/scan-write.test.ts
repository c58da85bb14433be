import { describe, expect, it } from "vitest";
import type { MetricStatus } from "../../src/derive/types.js";
import { statusesChanged } from "../../src/scan/scan-write.js";
import { status } from "../store/fixtures.js";

describe("statusesChanged", () => {
  const held = (scanId: string | null, statuses: MetricStatus[]) => ({ scanId, statuses: new Map(statuses.map((s) => [s.metric_name, s])) });

  it("lists the statuses that differ from those held, new metrics included", () => {
    const before = [status("a", "healthy"), status("b", "healthy"), status("c", "degraded", 3)];
    const now = [status("a", "healthy"), status("b", "unreliable"), status("c", "degraded", 4), status("d", "healthy")];
    expect(statusesChanged(held("s1", before), now)).toEqual({ basis: "s1", changed: [now[1], now[2], now[3]] });
  });

  it("compares counts as the store keeps them (integers)", () => {
    const stored = status("a", "healthy", 10);
    const scanned = { ...stored, tests: { ...stored.tests, passing: stored.tests.passing + 0.2 } };
    expect(statusesChanged(held("s1", [stored]), [scanned])).toEqual({ basis: "s1", changed: [] });
  });

  it("has no basis when the view holds no scan", () => {
    expect(statusesChanged(null, [status("a", "healthy")])).toBeNull();
    expect(statusesChanged(held(null, []), [status("a", "healthy")])).toBeNull();
  });
});
