// GET /v1/reliability/anomalies/:metric and its feedback. A read draws the series from the
// verdicts the scan scored and the read model holds (read-model/verdict-holder.ts): no scoring,
// no warehouse. A replica that did not run the scan reads a series' verdicts from the store once
// per scan. Feedback is the write path: it records the mark, scores that one series again from
// its held values with the feedback as it now stands, stores it, and the read model holds it.
import { badRequest, notFound, unavailable } from "../errors/app-error.js";
import { feedbackIndex, rescore } from "../evaluate/anomaly-observation.js";
import { ANOMALOUS, bucketStart, FEEDBACK, isSegmented, seriesOf, type SeriesVerdicts } from "../evaluate/series-verdicts.js";
import type { InferredTest } from "../infer/types.js";
import type { Logger } from "../logger.js";
import type { ReadModel } from "../read-model/read-model.js";
import type { Store } from "../store/store.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { rememberJson } from "./serialized.js";
import type { AnomalyService } from "./types.js";
import { iso, type AnomaliesView, type AnomalySeriesView } from "./views.js";

type SeriesTest = InferredTest & { probe: Extract<InferredTest["probe"], { type: "volume_series" | "value_series" }> };

const isSeries = (test: InferredTest): test is SeriesTest => test.probe.type === "volume_series" || test.probe.type === "value_series";
const finiteOrNull = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value : null);

/**
 * A band value as held (f32, series-verdicts.ts), written with the fewest digits that read back
 * to it: 1180.3, not 1180.300048828125. Nine significant digits always do.
 */
export function bandNumber(value: number | undefined): number | null {
  if (value === undefined || !Number.isFinite(value)) return null;
  for (let digits = 1; digits < 9; digits++) {
    const shorter = Number(value.toPrecision(digits));
    if (Math.fround(shorter) === value) return shorter;
  }
  return Number(value.toPrecision(9));
}

/** Answers kept per (view, revision); the map starts again when full. */
const ANSWERS_KEPT = 2_000;

export interface AnomalyServiceOptions {
  readModel: Pick<ReadModel, "view" | "verdicts">;
  store: Pick<Store, "anomalyFeedback" | "addAnomalyFeedback" | "anomalyBuckets" | "anomalyVerdicts" | "putAnomalyVerdicts">;
  logger?: Pick<Logger, "warn">;
}

/**
 * The check's series as drawn: its one series (segment null), or a segmented check's one per
 * segment, worst first, each named by this metric's own dimension name. A segmented check
 * without verdicts yet draws nothing (its segments are not known before a scan reads them).
 */
function seriesViews(test: SeriesTest, verdicts: SeriesVerdicts | null): AnomalySeriesView[] {
  const dimension = test.probe.segment?.dimension;
  if (dimension === undefined) return [seriesView(test, verdicts, null)];
  return (verdicts && isSegmented(verdicts) ? seriesOf(verdicts) : []).map((v) =>
    seriesView(test, v, { dimension, value: v.segment?.value ?? null, other: v.segment?.other ?? false }),
  );
}

function seriesView(test: SeriesTest, verdicts: SeriesVerdicts | null, segment: AnomalySeriesView["segment"]): AnomalySeriesView {
  const view: AnomalySeriesView = {
    rule: test.rule as AnomalySeriesView["rule"],
    measure: test.measure ?? "",
    grain: test.probe.settings.grain,
    segment,
    buckets: [],
  };
  if (!verdicts) return view;
  for (let i = 0; i < verdicts.flags.length; i++) {
    const flags = verdicts.flags[i]!;
    view.buckets.push({
      start: iso(new Date(bucketStart(verdicts, i))),
      value: finiteOrNull(verdicts.value[i]),
      expected: bandNumber(verdicts.expected[i]),
      lower: bandNumber(verdicts.lower[i]),
      upper: bandNumber(verdicts.upper[i]),
      anomalous: (flags & ANOMALOUS) !== 0,
      feedback: (flags & FEEDBACK) !== 0,
      excluded: verdicts.excluded?.get(i) ?? null,
    });
  }
  return view;
}

export function createAnomalyService(options: AnomalyServiceOptions): AnomalyService {
  const { readModel, store } = options;
  const holder = readModel.verdicts;
  let answers: { view: object; revision: number; byMetric: Map<string, AnomaliesView> } | null = null;

  function seriesTestsOf(snapshot: CatalogSnapshot, metric: string): SeriesTest[] {
    if (!snapshot.metricsByName.has(metric)) throw notFound(`metric "${metric}" not found`);
    return (snapshot.testsByMetric.get(metric) ?? []).filter(isSeries);
  }

  /** The verdicts of `tests` as of `scanId`: held, or read from the store once and then held. */
  async function verdictsOf(scanId: string, tests: readonly SeriesTest[]): Promise<Map<string, SeriesVerdicts | null>> {
    const held = new Map(tests.map((t) => [t.key, holder.get(scanId, t.key)]));
    const missing = [...held].filter(([, verdicts]) => verdicts === undefined).map(([key]) => key);
    if (missing.length === 0) return held as Map<string, SeriesVerdicts | null>;
    const asOf = holder.revision();
    let found;
    try {
      found = await store.anomalyVerdicts(missing);
    } catch (error) {
      throw unavailable("the status store is unavailable: the anomaly series cannot be read", error);
    }
    // Not held when a change came in during the read (another replica's feedback): this answer
    // uses what was read, and the next read asks the store again.
    holder.load(scanId, missing, found, asOf);
    return new Map([...held].map(([key, verdicts]) => [key, verdicts === undefined ? (found.get(key) ?? null) : verdicts]));
  }

  return {
    async series(metric) {
      const view = readModel.view();
      const revision = holder.revision();
      if (answers?.view !== view || answers.revision !== revision) answers = { view, revision, byMetric: new Map() };
      const kept = answers.byMetric.get(metric);
      if (kept) return kept;
      const tests = seriesTestsOf(view.catalog, metric);
      const scanId = view.scan?.scan_id;
      const verdicts = tests.length > 0 && scanId !== undefined ? await verdictsOf(scanId, tests) : new Map<string, null>();
      const drawn: AnomaliesView = { metric, series: tests.flatMap((test) => seriesViews(test, verdicts.get(test.key) ?? null)) };
      // Serialised once for REST, as the single-metric status is (serialized.ts).
      const answer = rememberJson(drawn, Buffer.from(JSON.stringify(drawn), "utf8"));
      // Kept only if nothing changed while the store was read.
      if (answers.view === view && answers.revision === revision) {
        if (answers.byMetric.size >= ANSWERS_KEPT) answers.byMetric.clear();
        answers.byMetric.set(metric, answer);
      }
      return answer;
    },

    async feedback({ metric, rule, measure, start }) {
      const view = readModel.view();
      const tests = seriesTestsOf(view.catalog, metric);
      // Feedback marks a bucket of the metric's total series (a segment's are scored at the scan only).
      const totals = tests.filter((t) => t.probe.segment === undefined);
      const test = totals.find((t) => t.rule === rule && t.measure === measure);
      if (!test) {
        const known = totals.filter((t) => t.rule === rule).map((t) => t.measure);
        throw badRequest(
          `metric "${metric}" has no ${rule} series for measure "${measure}"${known.length > 0 ? ` (it has: ${known.join(", ")})` : ""}`,
        );
      }
      const at = new Date(start);
      let flagged;
      try {
        flagged = await store.anomalyBuckets([test.key]);
      } catch (error) {
        throw unavailable("the status store is unavailable", error);
      }
      if (!flagged.some((b) => b.start.getTime() === at.getTime()))
        throw badRequest(`bucket ${iso(at)} of ${metric} ${rule} ${measure} was never flagged as anomalous`);
      let record;
      try {
        record = await store.addAnomalyFeedback({ check_key: test.key, start: at, metric, rule, measure });
      } catch (error) {
        throw unavailable("the status store is unavailable", error);
      }
      // The series scored again with the mark, now: the chart shows it at once (statuses follow at
      // the next scan). A failure here loses nothing: the mark is stored and the next scan scores it.
      const scanId = view.scan?.scan_id;
      if (scanId !== undefined) {
        try {
          const held = (await verdictsOf(scanId, [test])).get(test.key);
          const next = held ? rescore(test, held, feedbackIndex(await store.anomalyFeedback())) : null;
          if (next) {
            await store.putAnomalyVerdicts([next]);
            holder.put(scanId, next);
          }
        } catch (error) {
          options.logger?.warn({ err: error, metric }, "scoring the series again after feedback failed; the next scan will");
        }
      }
      return { metric, rule, measure, start: iso(at), expected: true, created_at: iso(record.created_at) };
    },
  };
}
