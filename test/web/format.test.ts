import { describe, expect, it } from "vitest";
import { age, count, duration, plural, utc } from "../../src/web/format.js";

const now = new Date("2026-03-10T12:00:00Z");

describe("page formatting", () => {
  it("says how old a time is, in the coarsest unit that is honest", () => {
    expect(age("2026-03-10T11:59:30Z", now)).toBe("just now");
    expect(age("2026-03-10T12:05:00Z", now)).toBe("just now"); // a clock ahead of ours
    expect(age("2026-03-10T11:55:00Z", now)).toBe("5 min ago");
    expect(age(new Date("2026-03-10T09:00:00Z"), now)).toBe("3 h ago");
    expect(age("2026-03-09T00:00:00Z", now)).toBe("36 h ago");
    expect(age("2026-03-01T12:00:00Z", now)).toBe("9 days ago");
  });

  it("writes durations and counts for people", () => {
    expect(duration(850)).toBe("850 ms");
    expect(duration(12_345)).toBe("12.3 s");
    expect(duration(245_000)).toBe("4 min 5 s");
    expect(duration(7_380_000)).toBe("2 h 3 min");
    expect(count(1_234_567)).toBe("1,234,567");
    expect(plural(1, "test")).toBe("1 test");
    expect(plural(3, "test")).toBe("3 tests");
    expect(utc("2026-03-10T09:05:59.123Z")).toBe("2026-03-10 09:05 UTC");
  });
});
