// The baseline fitted on one training window: seasonal effects and trend, in the fit space.
import type { Calendar } from "./calendar.js";
import { robustSdInPlace } from "./mad.js";
import { resistantLine, resistantSlope } from "./resistant-line.js";
import { medianInPlace } from "./select.js";
import type { Grain } from "./types.js";

/** Usable daily buckets a window needs before a trend is fitted through it. */
const MIN_TREND_DAYS = 21;

export type SeasonMode = "none" | "daily" | "weekly";

export interface BaselineFit {
  /** What the window could support (weekly needs two of every weekday, daily two days). */
  mode: SeasonMode;
  /** Hour-of-day effects (all 0 unless hourly and daily/weekly). */
  hourOfDay: Float64Array;
  /** Day-of-week effects, 0 = Monday (all 0 unless weekly). */
  dayOfWeek: Float64Array;
  /** Trend per bucket (Tukey's resistant line through the deseasonalized window). */
  slope: number;
  /** Robust sd of the residuals within each day (hourly) or week (daily); NaN if too few or not asked for. */
  residualScale: number;
}

export interface FitWindow {
  y: Float64Array;
  /** 1 where y is in training (finite and not flagged). */
  usable: Uint8Array;
  calendar: Calendar;
  grain: Grain;
  from: number;
  to: number;
  /** Compute residualScale (costs two selections over the window; only needed before any prediction error exists). */
  residualScale?: boolean;
}

/** Scratch buffers sized for one training window, reused across fits. */
export interface Workspace {
  index: Int32Array;
  segment: Int32Array;
  a: Float64Array;
  b: Float64Array;
  c: Float64Array;
  rowValue: Float64Array;
  rowKey: Float64Array;
  /** Usable buckets per row of the last collectRows. */
  rowCount: Int32Array;
  /** Centre of each row in bucket index (hour 11.5 of a day, Thursday of a week). */
  rowCentre: Float64Array;
  /** Per usable bucket (as ws.index): the row levels interpolated at that bucket. */
  base: Float64Array;
  rows: number;
}

export function createWorkspace(capacity: number): Workspace {
  const size = Math.max(8, capacity + 2);
  return {
    index: new Int32Array(size),
    segment: new Int32Array(size),
    a: new Float64Array(size),
    b: new Float64Array(size),
    c: new Float64Array(size),
    rowValue: new Float64Array(size),
    rowKey: new Float64Array(size),
    rowCount: new Int32Array(size),
    rowCentre: new Float64Array(size),
    base: new Float64Array(size),
    rows: 0,
  };
}

/** Seasonal effect of bucket j under a fit. */
export function seasonOf(fit: BaselineFit, calendar: Calendar, j: number): number {
  return fit.hourOfDay[calendar.hourOfDay[j]!]! + fit.dayOfWeek[calendar.dayOfWeek[j]!]!;
}

/**
 * Median polish (Tukey) of the window laid out as cycles × phases: rows are days (hourly) or weeks
 * (daily), columns the hour of day or the day of week; rows, columns, rows again. Hourly weekly adds a day-of-week
 * effect: the median, per weekday, of each day's level off a resistant line through the day levels.
 * The trend is a resistant line through the deseasonalized values. Robust throughout: a third of a
 * column may be outliers without moving its effect.
 */
export function fitBaseline(window: FitWindow, wanted: SeasonMode, ws: Workspace): BaselineFit {
  const { y, calendar, grain } = window;
  const fit: BaselineFit = {
    mode: "none",
    hourOfDay: new Float64Array(24),
    dayOfWeek: new Float64Array(7),
    slope: 0,
    residualScale: Number.NaN,
  };
  const count = collectRows(window, ws);
  if (count < 3) return fit;
  const rows = ws.rows;
  const { index, segment, a, rowValue } = ws;

  let mode: SeasonMode = wanted;
  if (grain === "day" && mode === "daily") mode = "none";
  // Cheap checks first: a window that cannot carry the term downgrades before any median is taken.
  if (mode === "weekly" && !coversWeek(window, ws, count)) mode = grain === "hour" ? "daily" : "none";
  if (mode === "daily" && rows < 2) mode = "none";

  // Rows first: each cycle's median level. At day grain the week levels are interpolated between
  // the weeks' centres, so that a trend within a week does not leak into the profile (with a 1%/day
  // trend a week's Monday sits 3% below its week's median: an effect no weekday has). Within a day
  // the same trend moves an hour by 1/24 of that, and interpolating day levels measured neutral.
  rowMedians(y, ws, count, rows, null, null);
  // Hourly no row is a knot, so each day keeps its own median.
  interpolateRows(ws, count, grain === "day" ? 4 : Infinity);
  const columns = grain === "hour" ? (mode === "none" ? null : fit.hourOfDay) : mode === "weekly" ? fit.dayOfWeek : null;
  if (columns === null) fit.mode = mode;
  const phaseOf = grain === "hour" ? calendar.hourOfDay : calendar.dayOfWeek;
  if (columns !== null) {
    const enough = columnEffects(y, ws, count, phaseOf, columns);
    if (!enough && grain === "day") mode = "none";
    if (!enough && grain === "hour" && rows < 2) mode = "none";
    if (mode === "none") columns.fill(0);
    // One more row sweep: row levels free of the profile, unbiased where some phases were excluded.
    else rowMedians(y, ws, count, rows, columns, phaseOf);
  }
  if (grain === "hour" && mode === "weekly" && !weekdayEffects(ws, fit.dayOfWeek)) mode = "daily";
  fit.mode = mode;

  // Trend through the deseasonalized values (x = bucket index); hourly through the day levels
  // (days with at least 6 usable hours, at their middle hour), 14 points instead of 336.
  if (grain === "hour" && mode !== "none") {
    let days = 0;
    let k = 0;
    for (let r = 0; r < rows; r++) {
      const first = index[k]!;
      k += ws.rowCount[r]!;
      if (ws.rowCount[r]! < 6 || !Number.isFinite(rowValue[r]!)) continue;
      a[days] = (first + index[k - 1]!) / 2;
      ws.b[days] = rowValue[r]! - fit.dayOfWeek[calendar.dayOfWeek[first]!]!;
      days++;
    }
    fit.slope = days >= 3 ? resistantSlope(a, ws.b, days, ws.c) : 0;
  } else {
    for (let k = 0; k < count; k++) {
      const j = index[k]!;
      a[k] = j;
      ws.b[k] = y[j]! - seasonOf(fit, calendar, j);
    }
    // A trend only where three weeks support it: through two weeks of days one odd day (a partial
    // first day) tilts the line, and the band learns that tilt's errors.
    fit.slope = grain === "hour" || count >= MIN_TREND_DAYS ? resistantSlope(a, ws.b, count, ws.c) : 0;
  }
  if (window.residualScale !== true) return fit;

  // Residuals within each cycle (row level includes the weekday effect).
  const colArray = columns ?? fit.hourOfDay;
  for (let k = 0; k < count; k++) {
    const j = index[k]!;
    a[k] = y[j]! - rowValue[segment[k]!]! - (columns === null ? 0 : colArray[phaseOf[j]!]!);
  }
  fit.residualScale = robustSdInPlace(a, count);
  return fit;
}

/**
 * Weekly needs every weekday: hourly, one day with at least 6 usable hours of each (and 7 such
 * days); daily, two usable days of each.
 */
function coversWeek(window: FitWindow, ws: Workspace, count: number): boolean {
  const seen = new Int32Array(7);
  const { calendar, grain } = window;
  if (grain === "hour") {
    let k = 0;
    for (let r = 0; r < ws.rows; r++) {
      const j = ws.index[k]!;
      if (ws.rowCount[r]! >= 6) seen[calendar.dayOfWeek[j]!]!++;
      k += ws.rowCount[r]!;
    }
  } else for (let k = 0; k < count; k++) seen[calendar.dayOfWeek[ws.index[k]!]!]!++;
  const needed = grain === "hour" ? 1 : 2;
  for (let w = 0; w < 7; w++) if (seen[w]! < needed) return false;
  return true;
}

/** Usable indices of the window into ws.index, their row into ws.segment, rows into ws.rowKey/rowCount/rows; returns the count. */
function collectRows(window: FitWindow, ws: Workspace): number {
  const { usable, y, calendar, from, to } = window;
  let count = 0;
  let rows = 0;
  let lastKey = Number.NaN;
  for (let j = from; j < to; j++) {
    if (usable[j] !== 1 || !Number.isFinite(y[j]!)) continue;
    const key = calendar.row[j]!;
    if (key !== lastKey) {
      ws.rowKey[rows] = key;
      ws.rowCount[rows] = 0;
      ws.rowCentre[rows] = window.grain === "hour" ? j - calendar.hourOfDay[j]! + 11.5 : j - calendar.dayOfWeek[j]! + 3;
      rows++;
      lastKey = key;
    }
    ws.index[count] = j;
    ws.segment[count] = rows - 1;
    ws.rowCount[rows - 1]!++;
    count++;
  }
  ws.rows = rows;
  return count;
}

/** ws.rowValue[r] = median over row r of y minus the column effect (if any). */
function rowMedians(
  y: Float64Array,
  ws: Workspace,
  count: number,
  rows: number,
  columns: Float64Array | null,
  phaseOf: Uint8Array | null,
): void {
  const { index, segment, a, rowValue } = ws;
  let k = 0;
  for (let r = 0; r < rows; r++) {
    let length = 0;
    while (k < count && segment[k] === r) {
      const j = index[k]!;
      a[length++] = y[j]! - (columns === null ? 0 : columns[phaseOf![j]!]!);
      k++;
    }
    rowValue[r] = medianInPlace(a, length);
  }
}

/**
 * ws.base[k] = the row levels (ws.rowValue) linearly interpolated between the rows' centres at
 * usable bucket k, extrapolated along the nearest segment beyond the first and last centres.
 * Knots are the rows with at least `minCount` usable buckets (a partial row's median is biased by
 * the phases it lacks); with one knot the level is flat, with none each row's own median.
 */
export function interpolateRows(ws: Workspace, count: number, minCount: number): void {
  const { rowValue, rowCentre, rowCount, base, segment, index } = ws;
  const knots: number[] = [];
  for (let r = 0; r < ws.rows; r++) if (rowCount[r]! >= minCount && Number.isFinite(rowValue[r]!)) knots.push(r);
  if (knots.length < 2) {
    for (let k = 0; k < count; k++) base[k] = knots.length === 1 ? rowValue[knots[0]!]! : rowValue[segment[k]!]!;
    return;
  }
  let p = 0;
  for (let k = 0; k < count; k++) {
    const x = index[k]!;
    while (p < knots.length - 2 && rowCentre[knots[p + 1]!]! < x) p++;
    const left = knots[p]!;
    const right = knots[p + 1]!;
    const slope = (rowValue[right]! - rowValue[left]!) / (rowCentre[right]! - rowCentre[left]!);
    base[k] = rowValue[left]! + (x - rowCentre[left]!) * slope;
  }
}

/**
 * columns[p] = median over the window of (y - row level) at phase p, centred on their median.
 * A phase seen fewer than twice takes the mean of its nearest seen neighbours; false when none
 * or any phase lacks two samples (the caller may then drop the seasonality).
 */
function columnEffects(y: Float64Array, ws: Workspace, count: number, phaseOf: Uint8Array, columns: Float64Array): boolean {
  const { index, a, b } = ws;
  const phases = columns.length;
  const counts = new Int32Array(phases + 1);
  for (let k = 0; k < count; k++) counts[phaseOf[index[k]!]! + 1]!++;
  for (let p = 0; p < phases; p++) counts[p + 1]! += counts[p]!;
  const cursor = counts.slice(0, phases);
  for (let k = 0; k < count; k++) {
    const j = index[k]!;
    b[cursor[phaseOf[j]!]!++] = y[j]! - ws.base[k]!;
  }
  let complete = true;
  for (let p = 0; p < phases; p++) {
    const length = counts[p + 1]! - counts[p]!;
    if (length < 2) complete = false;
    if (length === 0) {
      columns[p] = Number.NaN;
      continue;
    }
    for (let q = 0; q < length; q++) a[q] = b[counts[p]! + q]!;
    columns[p] = medianInPlace(a, length);
  }
  fillGaps(columns);
  let finite = 0;
  for (let p = 0; p < phases; p++) if (Number.isFinite(columns[p]!)) a[finite++] = columns[p]!;
  if (finite === 0) {
    columns.fill(0);
    return false;
  }
  const center = medianInPlace(a, finite);
  for (let p = 0; p < phases; p++) columns[p] = columns[p]! - center;
  return complete;
}

/** Cyclic: an unseen phase takes the mean of the nearest seen phases on each side. */
function fillGaps(columns: Float64Array): void {
  const phases = columns.length;
  if (columns.every((v) => Number.isNaN(v))) return;
  const filled = columns.slice();
  for (let p = 0; p < phases; p++) {
    if (!Number.isNaN(columns[p]!)) continue;
    let before = Number.NaN;
    let after = Number.NaN;
    for (let d = 1; d < phases && Number.isNaN(before); d++) before = columns[(p - d + phases) % phases]!;
    for (let d = 1; d < phases && Number.isNaN(after); d++) after = columns[(p + d) % phases]!;
    filled[p] = (before + after) / 2;
  }
  columns.set(filled);
}

/**
 * Hourly weekly: day-of-week effects from the day levels (days with at least 6 usable hours) off a
 * resistant line through them. False (the fit falls back to daily) unless there are 7 such days
 * and one of every weekday: a day level is a median of up to 24 hours, precise enough alone.
 */
function weekdayEffects(ws: Workspace, dayOfWeek: Float64Array): boolean {
  const { a, b, c, rowValue, rowKey, rowCount } = ws;
  let days = 0;
  for (let r = 0; r < ws.rows; r++) {
    if (rowCount[r]! < 6 || !Number.isFinite(rowValue[r]!)) continue;
    a[days] = rowKey[r]!;
    b[days] = rowValue[r]!;
    days++;
  }
  if (days < 7) return false;
  const line = resistantLine(a, b, days, c);
  const offLine = new Float64Array(days);
  for (let d = 0; d < days; d++) offLine[d] = b[d]! - (line.intercept + line.slope * a[d]!);
  for (let w = 0; w < 7; w++) {
    let length = 0;
    // Row keys are UTC day numbers here; day 0 (1970-01-01) was a Thursday.
    for (let d = 0; d < days; d++) if ((((a[d]! + 3) % 7) + 7) % 7 === w) c[length++] = offLine[d]!;
    if (length < 1) return false;
    dayOfWeek[w] = medianInPlace(c, length);
  }
  for (let w = 0; w < 7; w++) c[w] = dayOfWeek[w]!;
  const center = medianInPlace(c, 7);
  for (let w = 0; w < 7; w++) dayOfWeek[w] = dayOfWeek[w]! - center;
  return true;
}
