// Serialised answers, cached around the services rather than inside them (the composition root
// wraps the services once; the transports never know). Answers that are the same for every
// caller are built and serialised once and shared:
// - whole listings (no query): once per catalogue snapshot (tests, IR; the IR again when the
//   warehouse check adds SQL errors to the snapshot) or per read-model view (statuses),
//   serialised in slices; kept as long as their snapshot / view is (WeakMaps);
// - single-metric statuses, which circuit breakers ask for over and over, and the incident
//   listings, which the overview asks for on every request: once per view, at most
//   CACHED_ANSWERS per view (the map starts again when full).
// The REST transport sends the remembered bytes (serialized.ts); tRPC gets the same objects.
// Pages and filtered listings are built per request, as are all other answers.
import type { ReadModel, ReadView } from "../read-model/read-model.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { CatalogFindings } from "../infer/catalog-findings.js";
import { isWholeListing } from "./paginate.js";
import { listingOnce, preserialized, rememberJson } from "./serialized.js";
import type { Services } from "./types.js";
import type { IncidentListingView } from "./incidents.js";
import type { CompilerStatusView, MetricStatusView, StatusListingView, TestListing } from "./views.js";

/** Single-metric answers kept per read-model view. */
export const CACHED_ANSWERS = 2_000;

export interface CacheSources {
  /** the view the reliability service answers from */
  readModel: Pick<ReadModel, "view">;
  /** the snapshot the validation and compiler services answer from */
  getSnapshot: () => CatalogSnapshot;
  /** and what the warehouse told about it (the compiler's listing) */
  getFindings: () => CatalogFindings;
}

/**
 * `services`, with answers cached per view / snapshot. The services read their view or snapshot
 * synchronously when called, so the one read here, just before the call, is the one the answer
 * was built from.
 */
export function cachedServices(services: Services, { readModel, getSnapshot, getFindings }: CacheSources): Services {
  const { validation, compiler, reliability, anomalies } = services;
  const testListings = new WeakMap<CatalogSnapshot, Promise<TestListing>>();
  const irListings = new WeakMap<CatalogSnapshot, { findings: CatalogFindings; listing: Promise<CompilerStatusView> }>();
  const statusListings = new WeakMap<ReadView, Promise<StatusListingView>>();
  const metricStatuses = new WeakMap<ReadView, Map<string, Promise<MetricStatusView>>>();
  const incidentListings = new WeakMap<ReadView, Map<string, Promise<IncidentListingView>>>();

  return {
    validation: {
      listTests: (query = {}) =>
        isWholeListing(query)
          ? listingOnce(testListings, getSnapshot(), () => validation.listTests(query), "tests")
          : validation.listTests(query),
      runTests: () => validation.runTests(),
    },

    compiler: {
      status(query = {}) {
        if (!isWholeListing(query)) return compiler.status(query);
        // Keyed by the snapshot AND the findings: each warehouse check or scan replaces them.
        const snapshot = getSnapshot();
        const findings = getFindings();
        let cached = irListings.get(snapshot);
        if (cached?.findings !== findings) {
          const entry = { findings, listing: compiler.status(query).then((listing) => preserialized(listing, "metrics")) };
          irListings.set(snapshot, (cached = entry));
          void entry.listing.catch(() => irListings.get(snapshot) === entry && irListings.delete(snapshot));
        }
        return cached.listing;
      },
      irByName: (name) => compiler.irByName(name),
    },

    reliability: {
      status: (query = {}) =>
        isWholeListing(query)
          ? listingOnce(statusListings, readModel.view(), () => reliability.status(query), "metrics")
          : reliability.status(query),

      metricStatus: (name) =>
        perView(metricStatuses, readModel.view(), name, () =>
          reliability.metricStatus(name).then((a) => rememberJson(a, Buffer.from(JSON.stringify(a), "utf8"))),
        ),

      affectedBy: (table) => reliability.affectedBy(table),
      triggerScan: (options) => reliability.triggerScan(options),
      getScan: (id) => reliability.getScan(id),
      incidents(query = {}) {
        // The overview asks for the open incidents on every request.
        const key = `${query.state ?? ""}|${query.limit ?? ""}|${query.cursor ?? ""}`;
        return perView(incidentListings, readModel.view(), key, () => reliability.incidents(query));
      },
      incident: (id) => reliability.incident(id),
    },
    // The anomaly series are drawn from the held verdicts and kept per view and revision by the service itself.
    anomalies,
  };
}

/**
 * The answer for `key` as of `view`, built once: at most CACHED_ANSWERS per view (the map starts
 * again when full); a failed answer (an unknown metric: not_found) is not kept.
 */
function perView<T>(byView: WeakMap<ReadView, Map<string, Promise<T>>>, view: ReadView, key: string, build: () => Promise<T>): Promise<T> {
  let answers = byView.get(view);
  if (!answers) byView.set(view, (answers = new Map<string, Promise<T>>()));
  const cached = answers.get(key);
  if (cached) return cached;
  const answer = build();
  if (answers.size >= CACHED_ANSWERS) answers.clear();
  answers.set(key, answer);
  const held = answers;
  void answer.catch(() => held.get(key) === answer && held.delete(key));
  return answer;
}
