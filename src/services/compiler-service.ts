import type { CatalogError, CatalogWarning } from "../catalog/types.js";
import type { MetricIR } from "../compile/ir.js";
import { caseMatchMessage } from "../plan/column-case.js";
import { notFound } from "../errors/app-error.js";
import { readsTable } from "./affected-by.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { isWholeListing, paginate } from "./paginate.js";
import type { CompilerService } from "./types.js";
import { iso, type CompilerStatusView } from "./views.js";

export interface CompilerServiceOptions {
  getSnapshot: () => CatalogSnapshot;
}

const fileOf = (snapshot: CatalogSnapshot, metric: string | undefined) =>
  metric === undefined ? "" : (snapshot.metricsByName.get(metric)?.file ?? "");

/** Column names the last scan read in the warehouse's letter case: one warning per name. */
function caseWarnings(snapshot: CatalogSnapshot): CatalogWarning[] {
  return [...(snapshot.case_matches?.values() ?? [])]
    .filter((m) => m.actual.length === 1)
    .map((m) => ({ file: fileOf(snapshot, m.metrics[0]), message: `${caseMatchMessage(m)} (${m.metrics.join(", ")})` }));
}

/** Column names that match two warehouse columns ignoring case: an error of each metric reading one. */
function caseErrors(snapshot: CatalogSnapshot): CatalogError[] {
  return [...(snapshot.case_matches?.values() ?? [])]
    .filter((m) => m.actual.length > 1)
    .flatMap((m) => m.metrics.map((metric) => ({ metric, file: fileOf(snapshot, metric), message: caseMatchMessage(m) })));
}

/** The whole catalogue; a page of it (and its next_cursor) when `page` is given. */
export function compilerStatusView(
  snapshot: CatalogSnapshot,
  page?: { metrics: MetricIR[]; count: number; next_cursor: string | null },
): CompilerStatusView {
  return {
    metrics: page?.metrics ?? snapshot.metrics,
    count: page?.count ?? snapshot.metrics.length,
    compiled_at: iso(snapshot.compiled_at),
    errors: [...snapshot.errors, ...(snapshot.sql_errors?.values() ?? []), ...caseErrors(snapshot)].map((e) => ({
      metric: e.metric,
      file: e.file,
      message: e.message,
    })),
    warnings: [...snapshot.warnings, ...caseWarnings(snapshot)].map((w) => ({ file: w.file, message: w.message })),
    ...(page ? { next_cursor: page.next_cursor } : {}),
  };
}

export function createCompilerService({ getSnapshot }: CompilerServiceOptions): CompilerService {
  return {
    async status(query = {}) {
      const snapshot = getSnapshot();
      if (isWholeListing(query)) return compilerStatusView(snapshot);
      const { metric, table } = query;
      const page = paginate(
        snapshot.metrics,
        (ir) => (metric === undefined || ir.name === metric) && (table === undefined || readsTable(ir, table)),
        query,
        snapshot.version,
      );
      return compilerStatusView(snapshot, { metrics: page.items, count: page.matched, next_cursor: page.next_cursor });
    },
    async irByName(name) {
      const ir = getSnapshot().metricsByName.get(name);
      if (!ir) throw notFound(`metric "${name}" not found`);
      return ir;
    },
  };
}
