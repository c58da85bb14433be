// The letter-case matches a scan's schema read found (plan/column-case.ts) as the catalogue's
// findings: a name matching two of the warehouse's columns is an error of each metric reading
// it; one match, a warning naming the metrics.
import type { CatalogError, CatalogWarning } from "../catalog/types.js";
import type { CatalogFindings } from "../infer/catalog-findings.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { caseMatchMessage, type CaseMatch } from "../plan/column-case.js";

export function caseFindings(
  snapshot: CatalogSnapshot,
  matches: readonly CaseMatch[],
): Pick<CatalogFindings, "case_errors" | "case_warnings"> {
  const fileOf = (metric: string | undefined) => (metric === undefined ? "" : (snapshot.metricsByName.get(metric)?.file ?? ""));
  // One per (datasource, table, name as written), as the scan resolved it.
  const unique = [...new Map(matches.map((m) => [`${m.datasource}|${m.table}|${m.written}`, m])).values()];
  const case_warnings: CatalogWarning[] = unique
    .filter((m) => m.actual.length === 1)
    .map((m) => ({ file: fileOf(m.metrics[0]), message: `${caseMatchMessage(m)} (${m.metrics.join(", ")})` }));
  const case_errors: CatalogError[] = unique
    .filter((m) => m.actual.length > 1)
    .flatMap((m) => m.metrics.map((metric) => ({ metric, file: fileOf(metric), message: caseMatchMessage(m) })));
  return { case_errors, case_warnings };
}
