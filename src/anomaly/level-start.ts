// Where the level of a pass over a series (series-run.ts) starts and how it moves when the
// seasonal profile is refitted. Pure.
import type { Calendar } from "./calendar.js";
import { seasonOf, type BaselineFit } from "./seasonal-baseline.js";
import { medianInPlace } from "./select.js";

/** The history a level is read from: values (level shifts re-learnt), and which buckets may train. */
export interface LevelHistory {
  y: Float64Array;
  usable: Uint8Array;
  calendar: Calendar;
}

/**
 * Median of the last cycle's usable buckets before bucket i (back to `floor`), deseasonalized and
 * carried along the trend to bucket i. `buffer` is one cycle long (a day of hours, a week of days).
 */
export function levelAt(history: LevelHistory, fit: BaselineFit, i: number, floor: number, buffer: Float64Array): number {
  let length = 0;
  for (let j = i - 1; j >= floor && length < buffer.length; j--) {
    if (history.usable[j] !== 1) continue;
    const yj = history.y[j]!;
    if (!Number.isFinite(yj)) continue;
    buffer[length++] = yj - seasonOf(fit, history.calendar, j) + fit.slope * (i - j);
  }
  return medianInPlace(buffer, length);
}

/**
 * A refit may move the seasonal effects by a constant (they are centred on their median, and the
 * window moved); the deseasonalized level moves the other way, over the last `cycle` buckets, so
 * predictions stay continuous across the refit.
 */
export function seasonShift(calendar: Calendar, cycle: number, i: number, before: BaselineFit, after: BaselineFit): number {
  let sum = 0;
  let count = 0;
  for (let j = Math.max(0, i - cycle); j < i; j++) {
    sum += seasonOf(before, calendar, j) - seasonOf(after, calendar, j);
    count++;
  }
  return count > 0 ? sum / count : 0;
}
