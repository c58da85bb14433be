// Definitions -> IR: the normalised shape the API serves and inference reads.
// Pure and total: the catalogue stage has already validated every definition.
import { filterColumns } from "../catalog/filter-columns.js";
import type { DerivedMetricDefinition, MetricDefinition, StructuredMetricDefinition } from "../catalog/types.js";
import { portableBooleansOrNull as portable } from "../sql/boolean-literals.js";
import { isExpression } from "../sql/value-expr.js";
import { DEFAULT_ANOMALY_DEFAULTS, resolveAnomalySettings, type AnomalyDefaults } from "./anomaly-settings.js";
import type { MetricIR } from "./ir.js";
import type { MeasureIRWithHints } from "./measure-hints.js";

/** A column stays as written; an expression (sql/value-expr.ts) runs on every supported ClickHouse. */
const portableValue = (value: string | null): string | null => (value === null || !isExpression(value) ? value : portable(value));

const columnsOf = (expr: string | null): string[] => (expr === null ? [] : filterColumns(expr));

// The definition's SQL fragments as they run on every supported ClickHouse (true/false -> 1/0).
function compileStructured(def: StructuredMetricDefinition, anomalyDefaults: AnomalyDefaults): MetricIR {
  const filter = portable(def.filter);
  return {
    name: def.name,
    kind: "structured",
    datasource: def.datasource,
    measures: def.measures.map((m): MeasureIRWithHints => ({
      alias: m.alias,
      function: m.function,
      column: m.column,
      expr: portable(m.expr),
      expr_columns: columnsOf(m.expr),
      ...(m.percentile === undefined ? {} : { percentile: m.percentile }),
      ...(m.non_negative === undefined ? {} : { non_negative: m.non_negative }),
    })),
    dimensions: def.dimensions.map((d) => ({
      name: d.name,
      // A dimension that names the base table is read from it: null, like an unqualified one.
      source_table: d.table === undefined || d.table === def.table ? null : d.table,
      column: d.column,
      expr: portable(d.expr),
      expr_columns: columnsOf(d.expr),
      ...(d.accepted_values === undefined ? {} : { accepted_values: [...d.accepted_values] }),
    })),
    joins: def.joins.map((j) => ({
      table: j.table,
      from_table: j.from,
      type: j.type,
      left_column: j.column,
      right_column: j.references,
      relationship: j.relationship,
    })),
    description: def.description,
    table: def.table,
    primary_key: portableValue(def.primary_key),
    filter,
    filter_columns: filter === null ? [] : filterColumns(filter),
    timestamp: portableValue(def.timestamp),
    freshness_seconds: def.freshness_seconds,
    inputs: [],
    tolerances: { ...def.tolerances },
    declared_tests: def.declared_tests.map((t) => ({ ...t })),
    anomalies: resolveAnomalySettings(def.anomalies, anomalyDefaults, def.timestamp !== null),
    source: { ...def.source },
    metricflow: def.metricflow,
    file: def.file,
  };
}

function compileDerived(def: DerivedMetricDefinition): MetricIR {
  return {
    name: def.name,
    kind: "derived",
    datasource: def.datasource,
    measures: [],
    dimensions: [],
    joins: [],
    description: def.description,
    table: null,
    primary_key: null,
    filter: null,
    filter_columns: [],
    timestamp: null,
    freshness_seconds: null,
    inputs: [...def.inputs],
    tolerances: {},
    declared_tests: [],
    anomalies: null,
    source: { ...def.source },
    metricflow: def.metricflow,
    file: def.file,
  };
}

/** `anomalyDefaults`: the ANOMALY_* configuration, filling what a metric's `anomalies:` leaves out. */
export function compileMetric(def: MetricDefinition, anomalyDefaults: AnomalyDefaults = DEFAULT_ANOMALY_DEFAULTS): MetricIR {
  return def.kind === "derived" ? compileDerived(def) : compileStructured(def, anomalyDefaults);
}

/** Same order as the definitions (the catalogue's deterministic order). */
export function compileCatalog(metrics: MetricDefinition[], anomalyDefaults: AnomalyDefaults = DEFAULT_ANOMALY_DEFAULTS): MetricIR[] {
  return metrics.map((def) => compileMetric(def, anomalyDefaults));
}
