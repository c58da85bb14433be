import { notFound } from "../errors/app-error.js";
import type { CatalogSnapshot } from "./catalog-snapshot.js";
import type { CompilerService } from "./types.js";
import { iso, type CompilerStatusView } from "./views.js";

export interface CompilerServiceOptions {
  getSnapshot: () => CatalogSnapshot;
}

export function compilerStatusView(snapshot: CatalogSnapshot): CompilerStatusView {
  return {
    metrics: snapshot.metrics,
    count: snapshot.metrics.length,
    compiled_at: iso(snapshot.compiled_at),
    errors: [...snapshot.errors, ...(snapshot.sql_errors?.values() ?? [])].map((e) => ({ metric: e.metric, file: e.file, message: e.message })),
    warnings: snapshot.warnings.map((w) => ({ file: w.file, message: w.message })),
  };
}

export function createCompilerService({ getSnapshot }: CompilerServiceOptions): CompilerService {
  return {
    async status() {
      return compilerStatusView(getSnapshot());
    },
    async irByName(name) {
      const ir = getSnapshot().metrics.find((m) => m.name === name);
      if (!ir) throw notFound(`metric "${name}" not found`);
      return ir;
    },
  };
}
