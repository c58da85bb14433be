// What /readyz reports, checked for real and cached briefly, so probes every few seconds from every
// kubelet cost one cheap query per dependency, not one per probe.
// - Ready = accepting (started, not shutting down) and the read model loaded: the statuses,
//   listings, tests, IR and affected-by answers all come from memory, so the replica can serve
//   them whatever its dependencies do.
// - A store or warehouse outage does NOT make the replica unready. Every replica shares the one
//   store, so a store-driven readiness would empty the Service at once and turn a partial outage
//   (scans and scan lookups fail with 503) into a total one (circuit breakers lose their answer).
//   Both outages show in the body and in /metrics (metric_reliability_store_up,
//   metric_reliability_warehouse_up), where alerts read them. docs/reliability.md has the reasoning.

export interface DependencyCheck {
  status: "up" | "down";
  /** why it is down; absent when up */
  message?: string;
}

export interface ReadinessReport {
  ready: boolean;
  /** why the replica is not ready (the first failing reason), null when ready */
  reason: string | null;
  checked_at: Date;
  /** null when not checked (starting or shutting down) */
  store: DependencyCheck | null;
  warehouses: Record<string, DependencyCheck>;
}

export interface Pingable {
  ping(): Promise<boolean>;
}

export interface ReadinessOptions {
  store: Pingable;
  warehouses: ReadonlyMap<string, Pingable>;
  /** false while starting and once shutting down */
  isAccepting: () => boolean;
  /** true once the read model holds the store's state (it keeps it through a store outage) */
  isLoaded: () => boolean;
  /** a check younger than this is reused */
  cacheMs?: number;
  /** how long each dependency may take to answer */
  pingBudgetMs?: number;
  /** told every fresh result, e.g. to set Prometheus gauges */
  onCheck?: (report: ReadinessReport) => void;
  now?: () => number;
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
}

export const READINESS_CACHE_MS = 5_000;

/**
 * A dependency that has not answered within this budget counts as down, so /readyz answers well
 * inside a probe's timeout (the chart's is 3 s) even when a host black-holes its packets: a
 * warehouse that hangs must not make the probe itself time out, which would mark the pod unready.
 */
export const READINESS_PING_BUDGET_MS = 2_000;

async function pingOf(target: Pingable, downMessage: string, budgetMs: number): Promise<DependencyCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<DependencyCheck>((resolve) => {
    timer = setTimeout(() => resolve({ status: "down", message: `${downMessage} within ${budgetMs / 1000} s` }), budgetMs);
    timer.unref();
  });
  const answer = target.ping().then(
    (ok): DependencyCheck => (ok ? { status: "up" } : { status: "down", message: downMessage }),
    (error: unknown): DependencyCheck => ({ status: "down", message: `${downMessage}: ${(error as Error).message}` }),
  );
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

type Dependencies = Pick<ReadinessReport, "checked_at" | "store" | "warehouses">;

export function createReadiness(options: ReadinessOptions): Readiness {
  const cacheMs = options.cacheMs ?? READINESS_CACHE_MS;
  const budgetMs = options.pingBudgetMs ?? READINESS_PING_BUDGET_MS;
  const now = options.now ?? Date.now;
  let cached: { at: number; dependencies: Dependencies } | null = null;
  let inFlight: Promise<Dependencies> | null = null;

  /** The verdict depends on this process only, never on a dependency's answer; decided per call. */
  const report = (dependencies: Dependencies): ReadinessReport =>
    options.isLoaded()
      ? { ready: true, reason: null, ...dependencies }
      : { ready: false, reason: "the statuses have not been loaded from the store yet", ...dependencies };

  async function fresh(): Promise<Dependencies> {
    const [store, ...warehouses] = await Promise.all([
      pingOf(options.store, "the store did not answer SELECT 1", budgetMs),
      ...[...options.warehouses].map(
        async ([name, w]) => [name, await pingOf(w, "the warehouse did not answer SELECT 1", budgetMs)] as const,
      ),
    ]);
    const dependencies: Dependencies = { checked_at: new Date(now()), store, warehouses: Object.fromEntries(warehouses) };
    options.onCheck?.(report(dependencies));
    return dependencies;
  }

  return {
    async check() {
      if (!options.isAccepting()) {
        // Starting or shutting down: no query needed, and none may touch a closing store.
        return { ready: false, reason: "starting or shutting down", checked_at: new Date(now()), store: null, warehouses: {} };
      }
      if (cached && now() - cached.at < cacheMs) return report(cached.dependencies);
      inFlight ??= fresh().finally(() => {
        inFlight = null;
      });
      const dependencies = await inFlight;
      cached = { at: now(), dependencies };
      return report(dependencies);
    },
  };
}
