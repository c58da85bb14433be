// Every anomaly check of a scan judged on what the series queries read: located in its group and
// grain, scored with the feedback on its series, observed. Synchronous per check, or in steps (per
// check, and per segment), so the caller can slice a large catalogue's checks (event-loop/chunked.ts).
import type { InferredTest } from "../infer/types.js";
import { grainSlot, type SeriesGroup } from "../plan/series-query.js";
import type { Skip } from "../plan/types.js";
import type { AnomalyJudgement, CheckObservation } from "./types.js";
import { observeSeries, scoreCheck, type FeedbackIndex } from "./anomaly-observation.js";
import { notApplicable, notEvaluated } from "./observe.js";
import { observeLoads } from "./load-arrivals.js";
import type { GrainReading, GroupReading, HeldJudgement } from "./series-values.js";
import { toSeriesVerdicts } from "./series-verdicts.js";
import { judgeSegmentsSteps } from "./segment-observation.js";
import { runToEnd } from "./steps.js";

/** Where a check's answer is: its group's reading and grain, or why it was never sent. */
export type Located = { skipped: Skip } | { reading: GroupReading; grain: GrainReading | null };

/** check key -> where its answer is, for every check the plan grouped or skipped. */
export function locateAnomalyChecks(
  groups: readonly SeriesGroup[],
  readings: ReadonlyMap<string, GroupReading>,
  skipped: readonly ({ test_key: string } & Skip)[],
): Map<string, Located> {
  const located = new Map<string, Located>();
  for (const { test_key, outcome, reason } of skipped) located.set(test_key, { skipped: { outcome, reason } });
  for (const group of groups) {
    const reading = readings.get(group.id);
    if (!reading) continue;
    for (const test of group.cadenceTests) located.set(test.key, { reading, grain: null });
    for (const plan of group.grains) {
      const grain = reading.grains.find((g) => grainSlot(g) === grainSlot(plan)) ?? null;
      for (const test of plan.tests) located.set(test.key, { reading, grain });
    }
  }
  return located;
}

/** A check the planner did not send: not applicable (passing), or not evaluated. */
export const skippedObservation = (skip: Skip): CheckObservation =>
  skip.outcome === "not_applicable" ? notApplicable(skip.reason) : notEvaluated(skip.reason);

export function judgeAnomalyCheck(test: InferredTest, located: Located | undefined, feedback: FeedbackIndex): AnomalyJudgement {
  return runToEnd(judgeAnomalyCheckSteps(test, located, feedback));
}

/** judgeAnomalyCheck, pausing between a segmented check's segments (judgeSegmentsSteps). */
function* judgeAnomalyCheckSteps(
  test: InferredTest,
  located: Located | undefined,
  feedback: FeedbackIndex,
): Generator<void, AnomalyJudgement> {
  const none = (observation: CheckObservation): AnomalyJudgement => ({ observation, flagged: [], judged: false });
  if (!located) return none(notEvaluated("the anomaly check was not planned"));
  if ("skipped" in located) return none(skippedObservation(located.skipped));
  const { reading, grain } = located;
  if (reading.error !== null) return none(notEvaluated(reading.error));
  const cadence = reading.cadence;
  if (cadence === null) return none(notEvaluated("no cadence read"));
  if (test.probe.type === "load_cadence") return none(observeLoads(test, reading.loads));
  const failed = grain?.failed.get(test.key);
  if (failed !== undefined) return none(notEvaluated(failed));
  if (!grain || grain.series === null) {
    const window = test.probe.type === "volume_series" || test.probe.type === "value_series" ? test.probe.settings.grain : "";
    return none(notApplicable(`no rows in the history window (by ${window}), nothing to compare`));
  }
  if (grain.series.segments !== undefined) return yield* judgeSegmentsSteps(test, reading.group, grain.series, feedback);
  const scored = scoreCheck(test, grain.series, feedback);
  if (scored === null) return none(notEvaluated("the series query returned no values for this check"));
  const { observation, flagged } = observeSeries(test, reading.group, scored.verdict);
  return { observation, flagged, judged: true, verdicts: toSeriesVerdicts(test.key, scored.verdict, scored.warm_up, scored.read) };
}

/** The feedback on one check's series, as a comparable string. */
export function feedbackSignature(starts: ReadonlySet<number> | undefined): string {
  return starts === undefined || starts.size === 0 ? "" : [...starts].sort((a, b) => a - b).join(",");
}

/**
 * Every check of one group's reading, judged into `into` (by check key). A series check whose
 * reading holds a judgement made with the same feedback (the same series judged again on
 * unchanged data) takes it instead of scoring again; freshness_anomaly is always judged (the
 * clock moves its gap). The reading then holds this scan's judgements for the next.
 */
export function judgeGroup(reading: GroupReading, feedback: FeedbackIndex, into: Map<string, AnomalyJudgement>): void {
  for (const _step of judgeGroupSteps(reading, feedback, into));
}

/**
 * judgeGroup one check at a time: it pauses after each, and within a segmented check after each
 * segment, so a caller can hand the event loop back between them (a table's checks with segments
 * score for most of a second in all, one check of 50 segments for a tenth of it or more).
 */
export function* judgeGroupSteps(
  reading: GroupReading,
  feedback: FeedbackIndex,
  into: Map<string, AnomalyJudgement>,
): Generator<void, void> {
  const group = reading.group;
  for (const test of group.cadenceTests) into.set(test.key, judgeAnomalyCheck(test, { reading, grain: null }, feedback));
  const held = new Map<string, HeldJudgement>();
  for (const plan of group.grains) {
    const grain = reading.grains.find((g) => grainSlot(g) === grainSlot(plan)) ?? null;
    for (const test of plan.tests) {
      const signature = feedbackSignature(feedback.get(test.key));
      const before = reading.held?.get(test.key);
      const judgement =
        before && before.feedback === signature ? before : yield* judgeAnomalyCheckSteps(test, { reading, grain }, feedback);
      const verdicts = judgement.verdicts ?? null;
      into.set(test.key, { observation: judgement.observation, flagged: [...judgement.flagged], judged: judgement.judged, verdicts });
      held.set(test.key, {
        feedback: signature,
        observation: judgement.observation,
        flagged: judgement.flagged,
        judged: judgement.judged,
        verdicts,
      });
      if (judgement !== before) yield;
    }
  }
  reading.held = held;
}
