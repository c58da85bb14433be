import type { MetricIR } from "../compile/ir.js";
import { notFound } from "../errors/app-error.js";
import { readsTable } from "./affected-by.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { CatalogFindings } from "../infer/catalog-findings.js";
import { isWholeListing, paginate } from "./paginate.js";
import type { CompilerService } from "./types.js";
import { iso, type CompilerStatusView } from "./views.js";

export interface CompilerServiceOptions {
  getSnapshot: () => CatalogSnapshot;
  /** what the warehouse told about the catalogue since it was loaded */
  getFindings: () => CatalogFindings;
}

/** The whole catalogue; a page of it (and its next_cursor) when `page` is given. */
export function compilerStatusView(
  snapshot: CatalogSnapshot,
  findings: CatalogFindings,
  page?: { metrics: MetricIR[]; count: number; next_cursor: string | null },
): CompilerStatusView {
  return {
    metrics: page?.metrics ?? snapshot.metrics,
    count: page?.count ?? snapshot.metrics.length,
    compiled_at: iso(snapshot.compiled_at),
    errors: [...snapshot.errors, ...findings.sql_errors.values(), ...findings.case_errors].map((e) => ({
      metric: e.metric,
      file: e.file,
      message: e.message,
    })),
    warnings: [...snapshot.warnings, ...findings.case_warnings].map((w) => ({ file: w.file, message: w.message })),
    ...(page ? { next_cursor: page.next_cursor } : {}),
  };
}

export function createCompilerService({ getSnapshot, getFindings }: CompilerServiceOptions): CompilerService {
  return {
    async status(query = {}) {
      const snapshot = getSnapshot();
      if (isWholeListing(query)) return compilerStatusView(snapshot, getFindings());
      const { metric, table } = query;
      const page = paginate(
        snapshot.metrics,
        (ir) => (metric === undefined || ir.name === metric) && (table === undefined || readsTable(ir, table)),
        query,
        snapshot.version,
      );
      return compilerStatusView(snapshot, getFindings(), { metrics: page.items, count: page.matched, next_cursor: page.next_cursor });
    },
    async irByName(name) {
      const ir = getSnapshot().metricsByName.get(name);
      if (!ir) throw notFound(`metric "${name}" not found`);
      return ir;
    },
  };
}
