import type { Grain } from "./types.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Phases of each bucket, in UTC: hour of day (0..23), day of week (0 = Monday .. 6 = Sunday), and a
 * row number that groups buckets into cycles (the UTC day for hourly buckets, the Monday-based week
 * for daily ones). Computed from each start, so a missing bucket never shifts the phases after it.
 */
export interface Calendar {
  hourOfDay: Uint8Array;
  dayOfWeek: Uint8Array;
  row: Float64Array;
}

export function calendarOf(starts: readonly number[], grain: Grain): Calendar {
  const n = starts.length;
  const hourOfDay = new Uint8Array(n);
  const dayOfWeek = new Uint8Array(n);
  const row = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const start = starts[i]!;
    const day = Math.floor(start / DAY_MS);
    hourOfDay[i] = Math.floor((start - day * DAY_MS) / HOUR_MS);
    // 1970-01-01 was a Thursday (3 with Monday = 0).
    dayOfWeek[i] = (((day + 3) % 7) + 7) % 7;
    row[i] = grain === "hour" ? day : Math.floor((day + 3) / 7);
  }
  return { hourOfDay, dayOfWeek, row };
}
