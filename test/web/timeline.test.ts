import { describe, expect, it } from "vitest";
import { timeline } from "../../src/web/timeline.js";

const now = new Date("2026-03-31T00:00:00Z");
const day = (d: number) => new Date(Date.UTC(2026, 2, d)).toISOString();

describe("30-day status timeline", () => {
  it("lays the periods over the window, oldest first, with no-data where nothing was recorded", () => {
    // newest first, as the services give them; the oldest starts before the window
    const t = timeline(
      [
        { status: "unreliable", from: day(25), to: null },
        { status: "healthy", from: day(10), to: day(25) },
        { status: "degraded", from: day(1), to: day(6) },
      ],
      now,
    );
    expect(t.start.toISOString()).toBe(day(1));
    expect(t.segments.map((s) => [s.status, s.from.toISOString(), s.to.toISOString()])).toEqual([
      ["degraded", day(1), day(6)],
      ["none", day(6), day(10)],
      ["healthy", day(10), day(25)],
      ["unreliable", day(25), now.toISOString()],
    ]);
    expect(t.segments[0]!.x0).toBe(0);
    expect(t.segments[2]!.x0).toBeCloseTo(9 / 30, 10);
    expect(t.segments[3]!.x1).toBe(1);
  });

  it("is all no-data without history and clips a period that began before the window", () => {
    expect(timeline([], now).segments).toEqual([{ status: "none", from: new Date(day(1)), to: now, x0: 0, x1: 1 }]);
    const clipped = timeline([{ status: "healthy", from: "2025-12-01T00:00:00Z", to: null }], now);
    expect(clipped.segments).toHaveLength(1);
    expect(clipped.segments[0]).toMatchObject({ status: "healthy", x0: 0, x1: 1 });
  });

  it("drops periods that ended before the window", () => {
    const t = timeline(
      [
        { status: "healthy", from: day(20), to: null },
        { status: "unreliable", from: "2026-01-01T00:00:00Z", to: "2026-01-05T00:00:00Z" },
      ],
      now,
    );
    expect(t.segments.map((s) => s.status)).toEqual(["none", "healthy"]);
  });
});
