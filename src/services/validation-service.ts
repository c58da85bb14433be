import { countTests } from "../derive/derive.js";
import { judgeAll } from "../evaluate/evaluate.js";
import type { TestResult } from "../evaluate/types.js";
import { mapSlices } from "../event-loop/chunked.js";
import type { InferredTest } from "../infer/types.js";
import { blockedMetrics } from "../infer/blocked-metrics.js";
import type { ScanRecord } from "../store/store.js";
import { tableMatches } from "./affected-by.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { CatalogFindings } from "../infer/catalog-findings.js";
import { isWholeListing, paginate } from "./paginate.js";
import type { ScanRunner, TestListingQuery, ValidationService } from "./types.js";
import { iso, inferredTestView, testResultView, type TestListing, type TestRunView } from "./views.js";

export interface ValidationServiceOptions {
  getSnapshot: () => CatalogSnapshot;
  /** the SQL errors the warehouse found: their metrics' tests are "not evaluated" */
  getFindings: () => CatalogFindings;
  scanService: ScanRunner;
}

/** Listing comes from the compiled snapshot only: it never touches the warehouse. */
export function testListing(snapshot: CatalogSnapshot): TestListing {
  const tests = snapshot.tests.map(inferredTestView);
  return { tests, count: tests.length };
}

function matches(query: TestListingQuery): ((test: InferredTest) => boolean) | null {
  const { metric, rule, table } = query;
  if (metric === undefined && rule === undefined && table === undefined) return null;
  return (t) =>
    (metric === undefined || t.metric === metric) &&
    (rule === undefined || t.rule === rule) &&
    (table === undefined || tableMatches(t.table, table));
}

/** The POST /v1/semantic-tests/run body of a finished scan. Pure. */
export function testRunReport(scan: ScanRecord, results: TestResult[]): TestRunView {
  const c = countTests(results);
  return {
    summary: { total: c.total, passing: c.passing, failing: c.failing, warning: c.warning },
    tests: results.map(testResultView),
    ran_at: iso(scan.finished_at ?? scan.started_at),
  };
}

export function createValidationService({ getSnapshot, getFindings, scanService }: ValidationServiceOptions): ValidationService {
  return {
    async listTests(query = {}) {
      const snapshot = getSnapshot();
      if (isWholeListing(query)) return testListing(snapshot);
      const page = paginate(snapshot.tests, matches(query), query, snapshot.version);
      return { tests: page.items.map(inferredTestView), count: page.matched, next_cursor: page.next_cursor };
    },
    async runTests() {
      // Through the one scan service, so a run also updates reliability statuses and history.
      const { scan, observations } = await scanService.run("api_run");
      const snapshot = getSnapshot();
      const blocked = blockedMetrics(snapshot, getFindings().sql_errors);
      const results = await mapSlices(snapshot.tests, (slice) => judgeAll(slice, observations, blocked));
      return testRunReport(scan, results);
    },
  };
}
