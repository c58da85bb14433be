// The 30-day status strip on a metric's page, from its status periods. Pure: positions are
// fractions of the window, so the SVG and the tests read the same numbers.
import type { ReliabilityStatus } from "../derive/types.js";
import type { StatusPeriodView } from "../services/views.js";

export const TIMELINE_DAYS = 30;

export interface TimelineSegment {
  /** "none": no status recorded (before the first scan, or before the oldest period kept) */
  status: ReliabilityStatus | "none";
  from: Date;
  to: Date;
  /** 0..1 across the window */
  x0: number;
  x1: number;
}

export interface Timeline {
  start: Date;
  end: Date;
  segments: TimelineSegment[];
}

/** `history` newest first, as the services give it; `to: null` is the current period. */
export function timeline(history: readonly StatusPeriodView[], now: Date, days = TIMELINE_DAYS): Timeline {
  const end = now.getTime();
  const start = end - days * 86_400_000;
  const span = end - start;
  const periods = history
    .map((p) => ({ status: p.status, from: Date.parse(p.from), to: p.to === null ? end : Date.parse(p.to) }))
    .filter((p) => p.to > start && p.from < end && p.to > p.from)
    .sort((a, b) => a.from - b.from);
  const segments: TimelineSegment[] = [];
  const push = (status: TimelineSegment["status"], from: number, to: number) => {
    if (to <= from) return;
    segments.push({ status, from: new Date(from), to: new Date(to), x0: (from - start) / span, x1: (to - start) / span });
  };
  let cursor = start;
  for (const p of periods) {
    const from = Math.max(p.from, start, cursor);
    const to = Math.min(p.to, end);
    push("none", cursor, from);
    push(p.status, from, to);
    cursor = Math.max(cursor, to);
  }
  push("none", cursor, end);
  return { start: new Date(start), end: new Date(end), segments };
}
