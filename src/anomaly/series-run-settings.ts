// The constants of one pass over a series (series-run.ts), each with why it has its value.
import type { SmoothingCandidate } from "./level-smoother.js";
import type { Grain } from "./types.js";

/** The level starts as the median of the last cycle's usable buckets (a day of hours, a week of days), trend-corrected. */
export const LEVEL_BUCKETS: Record<Grain, number> = { hour: 24, day: 7 };
/** Smoothing candidates tried side by side (level-smoother.ts): from about a month to a few buckets of memory. */
export const CANDIDATES: Record<Grain, readonly SmoothingCandidate[]> = {
  hour: [...[0.02, 0.06, 0.2].map((alpha) => ({ alpha, ownTrend: false })), ...[0.04, 0.1].map((alpha) => ({ alpha, ownTrend: true }))],
  day: [...[0.1, 0.25, 0.5].map((alpha) => ({ alpha, ownTrend: false })), ...[0.15, 0.3].map((alpha) => ({ alpha, ownTrend: true }))],
};
/** Huber's clip for level updates, in robust sds of the one-step error (Gelper et al. use 2). */
export const HUBER = 2;
/**
 * Buckets between refits of the seasonal profile, trend and band scale. The level follows every
 * bucket (level-smoother.ts), so the profile only has to keep up with slow change; refitting at
 * every bucket would cost O(window) each.
 */
export const REFIT_EVERY: Record<Grain, number> = { hour: 168, day: 7 };
/**
 * One-step prediction errors needed in the window before buckets are judged (the calibration
 * phase). With the day grain's min_history of 7 the first bucket judged is the 15th: a series is
 * judged from day 14, as the z-score; the band is widened for so few errors (error-volatility.ts).
 */
export const MIN_ERRORS: Record<Grain, number> = { hour: 48, day: 7 };
/**
 * When the seasonal mode changes (the weekday effect admitted, or dropped), the window's older
 * errors were made by the other model: before a B2B series' weekday effect is admitted its
 * weekends are errors of 15-65%, and they stayed in the band's scale and tail factor until they
 * left the window, twelve weeks later at day grain (tail factor 1.33-1.42 on days 56-105 of the
 * generated orders and revenue series, 1.12-1.20 once they had left; the band a fifth wider).
 * Once the new mode has made this many errors of its own (at least MIN_ERRORS), only they
 * calibrate the band: 20, the number below which no tail factor is read (prediction-scale.ts).
 * Until then the whole window does, the older errors included: wider, not narrower.
 */
export const OWN_ERRORS = 20;
/**
 * A lone upward exceedance of the seasonal band in an hourly series whose errors come in runs
 * (lag-one correlation above CORRELATED, error-volatility.ts) is flagged only when the value is
 * also beyond the z-score's own edge, mean + 3 sds of the last 14 days (SECOND_OPINION_SDS, the
 * peers' threshold). Why: such series come in bursts, and a burst's single high hour that stays
 * within what the last two weeks held is the series being itself; on the real set 155 of 161
 * false-alarm episodes were upward, most of them lone buckets. Drops, pairs (a change that lasts)
 * and the range check are untouched, so an outage or a level shift is judged as before, and series
 * with independent errors keep the seasonal band alone. Hourly only, as the correlation: at day
 * grain the 14-day sd comes from 14 values (docs/anomaly-eval.md measures both). The gate was the
 * errors' tail factor before; the correlation separates real residuals from independent noise
 * better (the generated families with Student-t noise are heavy-tailed but independent).
 */
export const SECOND_OPINION_SDS = 3;
/** Seasonality under auto is chosen from at most this many training windows of history. */
export const CHOICE_WINDOWS = 4;
