// Deterministic series for the anomaly tests (a fake inside unit tests of pure functions is fine).
import type { Grain } from "../../src/anomaly/types.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** 2024-01-01, a Monday. */
export const MONDAY = Date.UTC(2024, 0, 1);

export function noise(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const u = (state + 0.5) / 4294967296;
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const v = (state + 0.5) / 4294967296;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

/** Bucket starts from MONDAY at the grain. */
export function startsOf(n: number, grain: Grain): number[] {
  return Array.from({ length: n }, (_, i) => MONDAY + i * (grain === "hour" ? HOUR : DAY));
}

/** Hourly orders: busy afternoons, quiet nights, weekends at 60%, 3% noise. */
export function hourlyOrders(days: number, seed = 1): number[] {
  const z = noise(seed);
  return Array.from({ length: days * 24 }, (_, i) => {
    const hour = i % 24;
    const weekday = Math.floor(i / 24) % 7;
    const profile = 0.2 + Math.exp(-((hour - 15) ** 2) / 18);
    return Math.round(1000 * profile * (weekday >= 5 ? 0.6 : 1) * (1 + 0.03 * z()));
  });
}

/** Daily values with a weekly cycle (weekends at `weekend` of weekdays, half by default) and 2% noise. */
export function dailyRevenue(days: number, seed = 2, weekend = 0.5): number[] {
  const z = noise(seed);
  return Array.from({ length: days }, (_, i) => 50_000 * (i % 7 >= 5 ? weekend : 1) * (1 + 0.02 * z()));
}
