import { describe, expect, it } from "vitest";
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { excludedStarts } from "../../src/anomaly/exclusions.js";
import { publicHolidays } from "../../src/anomaly/holidays.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import { dailyRevenue, hourlyOrders } from "./series-fixtures.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const days = (from: string, n: number) => Array.from({ length: n }, (_, i) => Date.parse(`${from}T00:00:00Z`) + i * DAY);
const hours = (from: string, n: number) => Array.from({ length: n }, (_, i) => Date.parse(`${from}T00:00:00Z`) + i * HOUR);
const iso = (ms: number) => new Date(ms).toISOString();

describe("publicHolidays", () => {
  it("lists a country's public holidays only, as UTC days and as the instants of the region's own day", () => {
    const us = publicHolidays("US", 2026);
    const christmas = us.find((h) => h.name === "Christmas Day");
    // New York's 25 December: 05:00 UTC to 05:00 UTC the next day.
    expect(christmas).toEqual({
      day: Date.UTC(2026, 11, 25) / DAY,
      days: 1,
      from: Date.parse("2026-12-25T05:00:00Z"),
      to: Date.parse("2026-12-26T05:00:00Z"),
      name: "Christmas Day",
    });
    // Bavaria: Corpus Christi is public there; Christmas Eve (a bank holiday) and Valentine's Day (an observance) are not.
    const by = publicHolidays("de-by", 2026).map((h) => h.name);
    expect(by).toContain("Corpus Christi");
    expect(by).not.toContain("Christmas Eve");
    expect(by).not.toContain("Valentine's Day");
  });
});

describe("excludedStarts", () => {
  it("is empty without holidays or exclusions", () => {
    expect(excludedStarts(days("2026-12-20", 10), "day", {}).size).toBe(0);
    expect(excludedStarts(days("2026-12-20", 10), "day", { holidays: null, exclude: [] }).size).toBe(0);
  });

  it("excludes the UTC day of a holiday at day grain, and its hours in the region's own time at hour grain", () => {
    const daily = excludedStarts(days("2026-12-20", 10), "day", { holidays: "GB" });
    expect([...daily].map(([s, r]) => [iso(s).slice(0, 10), r])).toEqual([
      ["2026-12-25", "holiday: Christmas Day"],
      ["2026-12-26", "holiday: Boxing Day"],
      // Boxing Day 2026 is a Saturday: the Monday after is its substitute.
      ["2026-12-28", "holiday: Boxing Day (substitute day)"],
    ]);
    const hourly = excludedStarts(hours("2026-12-24", 72), "hour", { holidays: "US" });
    expect(hourly.size).toBe(24);
    expect(Math.min(...hourly.keys())).toBe(Date.parse("2026-12-25T05:00:00Z"));
    expect(Math.max(...hourly.keys())).toBe(Date.parse("2026-12-26T04:00:00Z"));
    expect(new Set(hourly.values())).toEqual(new Set(["holiday: Christmas Day"]));
    // Sydney's Christmas and Boxing Day begin the evening before in UTC: 13:00.
    const sydney = [...excludedStarts(hours("2026-12-24", 72), "hour", { holidays: "AU-NSW" }).keys()].map(iso);
    expect(sydney[0]).toBe("2026-12-24T13:00:00.000Z");
    expect(sydney).toHaveLength(48);
  });

  it("finds holidays in every year a series spans", () => {
    const map = excludedStarts(days("2025-12-30", 4), "day", { holidays: "US" });
    expect([...map.keys()].map(iso)).toEqual(["2026-01-01T00:00:00.000Z"]);
    // Sydney's New Year's Day of 2027 begins on the last UTC day of 2026.
    const hourly = excludedStarts(hours("2026-12-31", 24), "hour", { holidays: "AU-NSW" });
    expect([...hourly].map(([start, reason]) => [iso(start).slice(11, 13), reason])[0]).toEqual(["13", "holiday: New Year's Day"]);
    expect(hourly.size).toBe(11);
  });

  it("excludes each bucket that overlaps [from, to): to is exclusive", () => {
    const exclude = [{ from: "2026-03-03T00:00:00.000Z", to: "2026-03-05T00:00:00.000Z", reason: "warehouse migration" }];
    expect([...excludedStarts(days("2026-03-01", 7), "day", { exclude }).keys()].map(iso)).toEqual([
      "2026-03-03T00:00:00.000Z",
      "2026-03-04T00:00:00.000Z",
    ]);
    // Part of a bucket is enough: 10:30 to 12:15 touches the 10, 11 and 12 o'clock hours.
    const partial = [{ from: "2026-03-03T10:30:00.000Z", to: "2026-03-03T12:15:00.000Z", reason: "backfill" }];
    expect([...excludedStarts(hours("2026-03-03", 24), "hour", { exclude: partial }).keys()].map((s) => iso(s).slice(11, 13))).toEqual([
      "10",
      "11",
      "12",
    ]);
    expect([...excludedStarts(days("2026-03-01", 7), "day", { exclude: partial })]).toEqual([
      [Date.parse("2026-03-03T00:00:00Z"), "backfill"],
    ]);
  });

  it("joins the reasons of a bucket excluded twice", () => {
    const exclude = [{ from: "2026-12-24T00:00:00.000Z", to: "2026-12-27T00:00:00.000Z", reason: "year-end freeze" }];
    const map = excludedStarts(days("2026-12-24", 3), "day", { holidays: "US", exclude });
    expect(map.get(Date.parse("2026-12-25T00:00:00Z"))).toBe("holiday: Christmas Day; year-end freeze");
    expect(map.get(Date.parse("2026-12-24T00:00:00Z"))).toBe("year-end freeze");
  });
});

describe("scoreSeries with excluded buckets", () => {
  const settings = { ...defaultAnomalySettings("day"), detection_buckets: 30 };
  const starts = days("2025-09-01", 140);
  const values = dailyRevenue(140);
  const christmas = starts.indexOf(Date.parse("2025-12-25T00:00:00Z"));

  it("flags a drop on a normal day, but not on an excluded one, which keeps its value and reason", () => {
    const dropped = values.map((v, i) => (i === christmas ? v * 0.1 : v));
    const plain = scoreSeries({ starts, values: dropped }, settings, "value");
    expect(plain.buckets[christmas]).toMatchObject({ anomalous: true, excluded: null });

    const excluded = excludedStarts(starts, "day", { holidays: "US" });
    const verdict = scoreSeries({ starts, values: dropped, excluded_starts: excluded }, settings, "value");
    expect(verdict.buckets[christmas]).toMatchObject({
      anomalous: false,
      excluded: "holiday: Christmas Day",
      value: dropped[christmas],
      expected: null,
    });
    expect(verdict.anomalous).toBe(0);
    expect(verdict.buckets.filter((b) => b.excluded !== null).map((b) => iso(b.start).slice(0, 10))).toEqual([
      "2025-09-01",
      "2025-10-13",
      "2025-11-11",
      "2025-11-27",
      "2025-12-25",
      "2026-01-01",
    ]);
  });

  it("scores an excluded bucket exactly as a missing one: it never trains", () => {
    const spiked = values.map((v, i) => (i === christmas - 20 ? v * 50 : v));
    const excluded = new Map([[starts[christmas - 20]!, "planned load test"]]);
    const verdict = scoreSeries({ starts, values: spiked, excluded_starts: excluded }, settings, "value");
    const missing = scoreSeries({ starts, values: spiked.map((v, i) => (i === christmas - 20 ? Number.NaN : v)) }, settings, "value");
    const strip = (b: (typeof verdict.buckets)[number]) => ({ ...b, value: 0, excluded: null });
    expect(verdict.buckets.map(strip)).toEqual(missing.buckets.map(strip));
    expect(verdict.buckets[christmas - 20]).toMatchObject({
      value: spiked[christmas - 20],
      excluded: "planned load test",
      anomalous: false,
    });
  });

  it("leaves every verdict unmarked when nothing is excluded", () => {
    const hourly = hourlyOrders(21);
    const verdict = scoreSeries(
      { starts: hours("2024-01-01", hourly.length), values: hourly, excluded_starts: new Map() },
      defaultAnomalySettings("hour"),
      "count",
    );
    expect(verdict.buckets.every((b) => b.excluded === null)).toBe(true);
  });
});
