// What the transports (REST, tRPC) call. All logic lives behind these; transports only
// parse input with src/api/schemas.ts, call one method and send the result.
import type { MetricIR } from "../compile/ir.js";
import type { ReliabilityStatus } from "../derive/types.js";
import type { IncidentListingQuery, IncidentListingView, IncidentView } from "./incidents.js";
import type { CheckObservation } from "../evaluate/types.js";
import type { ScanRecord, ScanTrigger } from "../store/store.js";
import type { PageRequest } from "./paginate.js";
import type {
  AffectedByView,
  AnomaliesView,
  AnomalyFeedbackView,
  CompilerStatusView,
  MetricStatusView,
  ScanTriggerView,
  ScanView,
  StatusListingView,
  TestListing,
  TestRunView,
} from "./views.js";

export interface TestListingQuery extends PageRequest {
  metric?: string | undefined;
  rule?: string | undefined;
  table?: string | undefined;
}

export interface IrListingQuery extends PageRequest {
  metric?: string | undefined;
  table?: string | undefined;
}

export interface StatusListingQuery extends PageRequest {
  metric?: string | undefined;
  status?: ReliabilityStatus | undefined;
  /** metrics whose base table (or a joined table) this is */
  table?: string | undefined;
}

/**
 * What the services ask of the scan service (scan/scan-service.ts, given by the composition
 * root): they start scans and wait for them, and never reach into the scan's stages.
 */
export interface ScanRunner {
  /** Starts a scan, or joins the one already running (coalesced: true). Returns at once. */
  trigger(trigger: ScanTrigger): Promise<{ scan: ScanRecord; coalesced: boolean }>;
  /** Resolves with the scan's final record once it has finished (or at once if it has). */
  wait(scanId: string): Promise<ScanRecord>;
  /** trigger + wait, returning the finished scan's observations. */
  run(trigger: ScanTrigger): Promise<{ scan: ScanRecord; observations: ReadonlyMap<string, CheckObservation> }>;
}

export interface ValidationService {
  /** the whole list without a query; a page (limit, cursor) and filters with one */
  listTests(query?: TestListingQuery): Promise<TestListing>;
  runTests(): Promise<TestRunView>;
}

export interface CompilerService {
  status(query?: IrListingQuery): Promise<CompilerStatusView>;
  /** throws AppError not_found for a metric outside the catalogue */
  irByName(name: string): Promise<MetricIR>;
}

export interface ReliabilityService {
  status(query?: StatusListingQuery): Promise<StatusListingView>;
  /** throws AppError not_found for a metric outside the catalogue */
  metricStatus(name: string): Promise<MetricStatusView>;
  affectedBy(table: string): Promise<AffectedByView>;
  /** without wait: the running scan at once; with wait: its finished state */
  triggerScan(options: { wait: boolean }): Promise<ScanTriggerView>;
  getScan(id: string): Promise<ScanView>;
  /** incidents, newest opened first; `state` filters, limit/cursor page */
  incidents(query?: IncidentListingQuery): Promise<IncidentListingView>;
  /** throws AppError not_found for an incident the read model does not hold */
  incident(id: string): Promise<IncidentView>;
}

export interface AnomalyFeedbackRequest {
  metric: string;
  rule: "volume_anomaly" | "metric_value_anomaly";
  measure: string;
  /** ISO 8601 */
  start: string;
  expected: true;
}

export interface AnomalyService {
  /** Every series of the metric's anomaly checks with its band; throws not_found for a metric outside the catalogue. */
  series(metric: string): Promise<AnomaliesView>;
  /** Marks a flagged bucket expected; bad_request when the metric has no such series or the bucket was never flagged. */
  feedback(request: AnomalyFeedbackRequest): Promise<AnomalyFeedbackView>;
}

export interface Services {
  validation: ValidationService;
  compiler: CompilerService;
  reliability: ReliabilityService;
  anomalies: AnomalyService;
}
