import type { MetricIR } from "../compile/ir.js";
import { notFound } from "../errors/app-error.js";
import { tableMatches } from "./affected-by.js";
import type { CatalogSnapshot } from "./catalog-snapshot.js";
import { paginate, type PageRequest } from "./paginate.js";
import { wholeListing } from "./serialized.js";
import type { CompilerService } from "./types.js";
import { iso, type CompilerStatusView } from "./views.js";

export interface CompilerServiceOptions {
  getSnapshot: () => CatalogSnapshot;
}

export interface IrListingQuery extends PageRequest {
  metric?: string | undefined;
  table?: string | undefined;
}

/** The whole catalogue; a page of it (and its next_cursor) when `page` is given. */
export function compilerStatusView(snapshot: CatalogSnapshot, page?: { metrics: MetricIR[]; count: number; next_cursor: string | null }): CompilerStatusView {
  return {
    metrics: page?.metrics ?? snapshot.metrics,
    count: page?.count ?? snapshot.metrics.length,
    compiled_at: iso(snapshot.compiled_at),
    errors: snapshot.errors.map((e) => ({ metric: e.metric, file: e.file, message: e.message })),
    ...(page ? { next_cursor: page.next_cursor } : {}),
  };
}

const readsTable = (ir: MetricIR, table: string) => tableMatches(ir.table, table) || ir.joins.some((j) => tableMatches(j.table, table));
const isEmpty = (query: IrListingQuery) => Object.values(query).every((v) => v === undefined);

export function createCompilerService({ getSnapshot }: CompilerServiceOptions): CompilerService {
  // The whole listing is the same for every caller of one catalogue: built and serialised once.
  const whole = new WeakMap<CatalogSnapshot, Promise<CompilerStatusView>>();
  return {
    async status(query = {}) {
      const snapshot = getSnapshot();
      if (isEmpty(query)) return wholeListing(whole, snapshot, () => compilerStatusView(snapshot), "metrics");
      const { metric, table } = query;
      const page = paginate(snapshot.metrics, (ir) => (metric === undefined || ir.name === metric) && (table === undefined || readsTable(ir, table)), query, snapshot.version);
      return compilerStatusView(snapshot, { metrics: page.items, count: page.matched, next_cursor: page.next_cursor });
    },
    async irByName(name) {
      const ir = getSnapshot().metricsByName.get(name);
      if (!ir) throw notFound(`metric "${name}" not found`);
      return ir;
    },
  };
}
