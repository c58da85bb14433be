// Stable rule ids, in output order. The catalogue validates `tolerances:` keys against
// this list, so a misspelt rule id is an error instead of a silently ignored override.
export const RULE_IDS = [
  "table_not_empty",
  "columns_exist",
  "filter_columns_exist",
  "primary_key_unique",
  "primary_key_not_null",
  "measure_not_null",
  "measure_finite",
  "measure_non_negative",
  "count_key_not_null",
  "dimension_not_null",
  "dimension_accepted_values",
  "filter_column_not_null",
  "join_key_unique",
  "join_referential_integrity",
  "foreign_key_not_null",
  "timestamp_not_future",
  "freshness",
  "volume_anomaly",
  "metric_value_anomaly",
  "freshness_anomaly",
  "dbt_not_null",
  "dbt_unique",
  "dbt_relationships",
  "dbt_accepted_values",
] as const;

export type RuleId = (typeof RULE_IDS)[number];

export function isRuleId(value: string): value is RuleId {
  return (RULE_IDS as readonly string[]).includes(value);
}
