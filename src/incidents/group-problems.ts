// Failing tests -> one problem per root table (datasource, table), with the metrics it makes
// unreliable or degraded. Derived metrics inherit their inputs' tests, so they usually fail
// directly; any derived metric built on an affected one is added too (as affected-by does).
import type { MetricIR } from "../compile/ir.js";
import type { Severity } from "../infer/types.js";
import type { FailingTest, IncidentImpact, ProblemMetric, ProblemTest, TableProblem } from "./types.js";

const SEVERITY_RANK: Record<Severity, number> = { HIGH: 3, MEDIUM: 2, LOW: 1 };

/** A table's identity across datasources: the Prometheus `table` label and the grouping key. */
export function rootLabel(datasource: string, table: string): string {
  return datasource === "default" ? table : `${datasource}:${table}`;
}

const impactOf = (t: FailingTest): IncidentImpact => (t.severity === "HIGH" || t.outcome === "failed" ? "unreliable" : "degraded");
const worse = (a: IncidentImpact, b: IncidentImpact): IncidentImpact =>
  a === "unreliable" || b === "unreliable" ? "unreliable" : "degraded";

/** Derived metrics (`derived`: those with inputs) built (transitively) on `affected`, with the worst impact of their inputs. */
function addDerived(derived: readonly MetricIR[], affected: Map<string, ProblemMetric>): void {
  let changed = true;
  // Bounded by the number of metrics: an input cycle cannot loop forever.
  while (changed) {
    changed = false;
    for (const ir of derived) {
      if (affected.has(ir.name)) continue;
      const inputs = ir.inputs.map((name) => affected.get(name)).filter((m) => m !== undefined);
      if (inputs.length === 0) continue;
      const impact = inputs.map((m) => m.impact).reduce(worse);
      affected.set(ir.name, { metric_name: ir.name, impact, relationship: "derived" });
      changed = true;
    }
  }
}

/**
 * One problem per root table, sorted by label; tests in the order first failed (catalogue order),
 * metrics in catalogue order. `metrics` is the catalogue (for derived metrics and the order).
 */
export function groupProblems(failing: readonly FailingTest[], metrics: readonly MetricIR[]): TableProblem[] {
  const groups = new Map<
    string,
    { datasource: string; table: string; tests: Map<string, ProblemTest>; metrics: Map<string, ProblemMetric> }
  >();
  const kinds = new Map(metrics.map((m) => [m.name, m.kind]));
  for (const t of failing) {
    const label = rootLabel(t.datasource, t.table);
    let group = groups.get(label);
    if (!group) groups.set(label, (group = { datasource: t.datasource, table: t.table, tests: new Map(), metrics: new Map() }));
    const test = group.tests.get(t.key);
    if (!test) {
      group.tests.set(t.key, { check_key: t.key, rule: t.rule, name: t.name, check: t.check, column: t.column, severity: t.severity });
    } else if (SEVERITY_RANK[t.severity] > SEVERITY_RANK[test.severity]) {
      test.severity = t.severity;
    }
    const metric = group.metrics.get(t.metric);
    const impact = impactOf(t);
    if (metric) metric.impact = worse(metric.impact, impact);
    else
      group.metrics.set(t.metric, {
        metric_name: t.metric,
        impact,
        relationship: kinds.get(t.metric) === "derived" ? "derived" : "direct",
      });
  }
  const order = new Map(metrics.map((m, i) => [m.name, i]));
  // Walked once per broken table: the derived metrics only, not the whole catalogue each time.
  const derived = metrics.filter((m) => m.inputs.length > 0);
  const position = (name: string) => order.get(name) ?? Number.MAX_SAFE_INTEGER;
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => {
      addDerived(derived, group.metrics);
      return {
        datasource: group.datasource,
        table: group.table,
        tests: [...group.tests.values()],
        metrics: [...group.metrics.values()].sort((a, b) => position(a.metric_name) - position(b.metric_name)),
      };
    });
}
