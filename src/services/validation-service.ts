import { countTests } from "../derive/derive.js";
import type { TestResult } from "../evaluate/types.js";
import type { ScanService } from "../scan/types.js";
import type { ScanRecord } from "../store/store.js";
import type { CatalogSnapshot } from "./catalog-snapshot.js";
import type { ValidationService } from "./types.js";
import { iso, inferredTestView, testResultView, type TestListing, type TestRunView } from "./views.js";

export interface ValidationServiceOptions {
  getSnapshot: () => CatalogSnapshot;
  scanService: ScanService;
}

/** Listing comes from the compiled snapshot only: it never touches the warehouse. */
export function testListing(snapshot: CatalogSnapshot): TestListing {
  const tests = snapshot.tests.map(inferredTestView);
  return { tests, count: tests.length };
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

export function createValidationService({ getSnapshot, scanService }: ValidationServiceOptions): ValidationService {
  return {
    async listTests() {
      return testListing(getSnapshot());
    },
    async runTests() {
      // Through the one scan service, so a run also updates reliability statuses and history.
      const { scan, results } = await scanService.run("api_run");
      return testRunReport(scan, results);
    },
  };
}
