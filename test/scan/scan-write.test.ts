import { describe, expect, it } from "vitest";
import type { MetricStatus } from "../../src/derive/types.js";
import { observationsSame, statusesChanged } from "../../src/scan/scan-write.js";
import { observation, status } from "../store/fixtures.js";

describe("statusesChanged", () => {
  const held = (scanId: string | null, statuses: MetricStatus[]) => ({
    scanId,
    statuses: new Map(statuses.map((s) => [s.metric_name, s])),
    observations: new Map(),
  });

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

describe("observationsSame", () => {
  it("lists the checks whose result is the one held, compared as the store keeps it", () => {
    const held = {
      scanId: "s1",
      statuses: new Map(),
      observations: new Map([
        ["a", observation(1, 100)],
        ["b", observation(2, 100)],
        ["c", observation(0, 100, { sample_sql: "SELECT 1" })],
      ]),
    };
    const now = new Map([
      ["a", { ...observation(1, 100), rows_total: 100.4, newest: 5 }],
      ["b", observation(3, 100)],
      ["c", observation(0, 100)],
      ["d", observation(0, 100)],
    ]);
    expect(observationsSame(held, now)).toEqual({ basis: "s1", keys: new Set(["a"]) });
    // checks an incremental scan kept as they were are never sent: not compared, not listed
    expect(observationsSame(held, now, new Set(["a", "b"]))).toEqual({ basis: "s1", keys: new Set() });
    expect(observationsSame({ scanId: null, statuses: new Map(), observations: new Map() }, now)).toBeNull();
  });
});
