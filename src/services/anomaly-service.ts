// GET /v1/reliability/anomalies/:metric and its feedback. The series come from the replica's
// series cache (what its last scan read); a replica that did not run the newest scan (another
// replica did, or it just restarted) reads the metric's tables' series from the warehouse once
// per scan and keeps them in the same cache. Every bucket is scored again with the feedback as
// it stands now, so a bucket marked expected shows at once (statuses follow at the next scan).
import { randomUUID } from "node:crypto";
import { badRequest, notFound, unavailable } from "../errors/app-error.js";
import { feedbackIndex, scoreCheck, type FeedbackIndex } from "../evaluate/anomaly-observation.js";
import type { GroupReading } from "../evaluate/series-values.js";
import type { InferredTest } from "../infer/types.js";
import type { Logger } from "../logger.js";
import { schemaFromRows, schemaQuery, type ColumnRow } from "../plan/schema-query.js";
import type { ReadModel } from "../read-model/read-model.js";
import type { SeriesCache } from "../read-model/series-cache.js";
import { readAnomalySeries } from "../scan/anomaly-series.js";
import { blockedMetrics } from "../scan/check-sql.js";
import type { AnomalyFeedbackRecord, Store } from "../store/store.js";
import type { Warehouse } from "../warehouse/warehouse.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { resolveColumnCase, resolvedGroupId } from "../plan/column-case.js";
import type { AnomalyService } from "./types.js";
import { iso, type AnomalySeriesView } from "./views.js";

type SeriesTest = InferredTest & { probe: Extract<InferredTest["probe"], { type: "volume_series" | "value_series" }> };

const isSeries = (test: InferredTest): test is SeriesTest => test.probe.type === "volume_series" || test.probe.type === "value_series";
const groupIdOf = (test: SeriesTest) => `${test.datasource}|${test.table}|${test.probe.timestamp}`;
const finiteOrNull = (value: number | null) => (value !== null && Number.isFinite(value) ? value : null);

export interface AnomalyServiceOptions {
  readModel: Pick<ReadModel, "view">;
  store: Pick<Store, "anomalyFeedback" | "addAnomalyFeedback" | "anomalyBuckets">;
  warehouses: ReadonlyMap<string, Warehouse>;
  seriesCache: SeriesCache;
  maxQuerySize: number;
  logger?: Pick<Logger, "warn">;
}

export function createAnomalyService(options: AnomalyServiceOptions): AnomalyService {
  const { readModel, store, warehouses, seriesCache } = options;
  /** the catalogue's anomaly tests per (datasource, table, timestamp), so an on-demand read serves every metric of the group */
  const groupTests = new WeakMap<CatalogSnapshot, { sqlErrors: number; byGroup: Map<string, InferredTest[]> }>();
  const inFlight = new Map<string, Promise<GroupReading | undefined>>();
  /** the last feedback the store answered with: served while the store is down */
  let lastFeedback: AnomalyFeedbackRecord[] = [];

  function testsOfGroup(snapshot: CatalogSnapshot, groupId: string): InferredTest[] {
    // Keyed by the SQL errors too: the warehouse check adds to them after the catalogue loads.
    const sqlErrors = snapshot.sql_errors?.size ?? 0;
    let byGroup = groupTests.get(snapshot)?.sqlErrors === sqlErrors ? groupTests.get(snapshot)!.byGroup : undefined;
    if (!byGroup) {
      byGroup = new Map();
      // As the scan does: a metric whose SQL ClickHouse cannot parse is never sent.
      const blocked = blockedMetrics(snapshot);
      for (const test of snapshot.tests) {
        if (blocked.has(test.metric)) continue;
        const probe = test.probe;
        if (probe.type !== "volume_series" && probe.type !== "value_series" && probe.type !== "load_cadence") continue;
        const id = `${test.datasource}|${test.table}|${probe.timestamp}`;
        const list = byGroup.get(id) ?? [];
        list.push(test);
        byGroup.set(id, list);
      }
      groupTests.set(snapshot, { sqlErrors, byGroup });
    }
    return byGroup.get(groupId) ?? [];
  }

  async function readOnDemand(snapshot: CatalogSnapshot, scanId: string, groupId: string): Promise<GroupReading | undefined> {
    const tests = testsOfGroup(snapshot, groupId);
    const first = tests[0];
    const warehouse = first ? warehouses.get(first.datasource) : undefined;
    if (!first || !warehouse) return undefined;
    const id = `anomalies-${randomUUID().slice(0, 8)}`;
    const signal = new AbortController().signal;
    try {
      const rows = await warehouse.query(schemaQuery([first.table]), { queryId: `${id}-schema`, signal });
      const schema = { [first.datasource]: schemaFromRows(rows as unknown as ColumnRow[]) };
      // As the scan reads them: columns in the warehouse's letter case (plan/column-case.ts).
      const reading = await readAnomalySeries(resolveColumnCase(tests, schema).tests, schema, warehouses, {
        scanId: id,
        concurrency: 1,
        maxQuerySize: options.maxQuerySize,
        signal,
      });
      const group = reading.groups.get(groupId) ?? reading.groups.get(resolvedGroupId(snapshot.case_matches, groupId));
      if (group) seriesCache.put(scanId, group);
      return group;
    } catch (error) {
      throw unavailable(`cannot read the series of ${first.table} from the warehouse: ${(error as Error).message}`, error);
    }
  }

  /** The group's reading as of `scanId`: held, or read once (concurrent requests share the read). */
  function readingOf(snapshot: CatalogSnapshot, scanId: string, groupId: string): Promise<GroupReading | undefined> {
    const held = seriesCache.get(scanId, groupId) ?? seriesCache.get(scanId, resolvedGroupId(snapshot.case_matches, groupId));
    if (held) return Promise.resolve(held);
    const key = `${scanId}|${groupId}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = readOnDemand(snapshot, scanId, groupId).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  }

  async function currentFeedback(): Promise<FeedbackIndex> {
    try {
      lastFeedback = await store.anomalyFeedback();
    } catch (error) {
      options.logger?.warn({ err: error }, "reading anomaly feedback failed; serving the last known");
    }
    return feedbackIndex(lastFeedback);
  }

  function seriesView(test: SeriesTest, reading: GroupReading | undefined, feedback: FeedbackIndex): AnomalySeriesView {
    const settings = test.probe.settings;
    const view: AnomalySeriesView = {
      rule: test.rule as AnomalySeriesView["rule"],
      measure: test.measure ?? "",
      grain: settings.grain,
      buckets: [],
    };
    const grain = reading?.grains.find((g) => g.grain === settings.grain);
    if (!grain?.series || grain.failed.has(test.key)) return view;
    const verdict = scoreCheck(test, grain.series, feedback);
    view.buckets = (verdict?.buckets ?? []).map((b) => ({
      start: iso(new Date(b.start)),
      value: finiteOrNull(b.value),
      expected: finiteOrNull(b.expected),
      lower: finiteOrNull(b.lower),
      upper: finiteOrNull(b.upper),
      anomalous: b.anomalous,
      feedback: b.feedback,
      excluded: b.excluded,
    }));
    return view;
  }

  function seriesTestsOf(snapshot: CatalogSnapshot, metric: string): SeriesTest[] {
    if (!snapshot.metricsByName.has(metric)) throw notFound(`metric "${metric}" not found`);
    return (snapshot.testsByMetric.get(metric) ?? []).filter(isSeries);
  }

  return {
    async series(metric) {
      const view = readModel.view();
      const tests = seriesTestsOf(view.catalog, metric);
      if (tests.length === 0) return { metric, series: [] };
      const scanId = view.scan?.scan_id ?? "none";
      const groupIds = [...new Set(tests.map(groupIdOf))];
      const readings = new Map(await Promise.all(groupIds.map(async (id) => [id, await readingOf(view.catalog, scanId, id)] as const)));
      const feedback = await currentFeedback();
      return { metric, series: tests.map((test) => seriesView(test, readings.get(groupIdOf(test)), feedback)) };
    },

    async feedback({ metric, rule, measure, start }) {
      const tests = seriesTestsOf(readModel.view().catalog, metric);
      const test = tests.find((t) => t.rule === rule && t.measure === measure);
      if (!test) {
        const known = tests.filter((t) => t.rule === rule).map((t) => t.measure);
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
      return { metric, rule, measure, start: iso(at), expected: true, created_at: iso(record.created_at) };
    },
  };
}
