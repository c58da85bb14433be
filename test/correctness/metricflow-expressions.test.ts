// MetricFlow time dimensions and entities defined by an SQL expression (dbt's latest spec,
// `derived_semantics:`) are the timestamp and primary key of their metrics' rules, scanned on
// both engines: the key `player_id || '-' || season` is checked for duplicates and NULLs, the
// time `toStartOfDay(played_at)` for future rows and drives the anomaly series. An expression
// ClickHouse cannot run (Snowflake's TO_TIMESTAMP_NTZ) is a named finding on the first scan.
import { describe, expect, it } from "vitest";
import type { TestResult } from "../../src/evaluate/types.js";
import { uniqueDatabase, engineCases } from "../helpers/warehouses.js";
import { scanProject } from "./run-scan.js";

const PROJECT = `
models:
  - name: player_seasons
    description: one row per player and season (loaded daily)
    semantic_model: true
    agg_time_dimension: game_day
    primary_entity: player_season
    columns:
      - name: team
        dimension: categorical
    derived_semantics:
      entities:
        - name: player_season
          type: primary
          expr: "player_id || '-' || season"
      dimensions:
        - name: game_day
          type: time
          granularity: day
          expr: toStartOfDay(played_at)
    metrics:
      - name: season_points
        type: simple
        agg: sum
        expr: points
  - name: player_games
    description: one row per game played, keyed to its player's season by the same expression
    semantic_model: true
    agg_time_dimension: played_at
    columns:
      - name: game_id
        entity: primary
      - name: played_at
        dimension: time
        granularity: day
    derived_semantics:
      entities:
        - name: player_season
          type: foreign
          expr: "player_id || '-' || season"
    metrics:
      - name: games_played
        type: simple
        agg: count
        expr: game_id
  - name: snowflake_orders
    description: written for Snowflake
    semantic_model: true
    agg_time_dimension: order_day
    derived_semantics:
      dimensions:
        - name: order_day
          type: time
          granularity: day
          expr: TO_TIMESTAMP_NTZ(ordered_at)
    metrics:
      - name: snowflake_order_count
        type: simple
        agg: count
        expr: order_id
`;

function statements(db: string): string[] {
  const days = (n: number) => `now() - ${n * 86_400}`;
  return [
    `CREATE DATABASE ${db}`,
    `CREATE TABLE ${db}.player_seasons (player_id Nullable(String), season String, team String, points Int64, played_at DateTime) ENGINE = MergeTree ORDER BY season`,
    // p2/2024 twice (a duplicate key), one NULL player (a NULL key), one game dated 10 days ahead.
    `INSERT INTO ${db}.player_seasons SELECT * FROM (` +
      [
        `SELECT 'p1', '2024', 'red', 10, ${days(3)}`,
        `SELECT 'p2', '2024', 'red', 12, ${days(2)}`,
        `SELECT 'p2', '2024', 'red', 7, ${days(2)}`,
        `SELECT 'p3', '2025', 'blue', 4, ${days(1)}`,
        `SELECT NULL, '2025', 'blue', 5, ${days(1)}`,
        `SELECT 'p4', '2025', 'blue', 9, now() + ${10 * 86_400}`,
      ].join(" UNION ALL ") +
      ")",
    `CREATE TABLE ${db}.player_games (game_id UInt64, player_id Nullable(String), season String, played_at DateTime) ENGINE = MergeTree ORDER BY game_id`,
    // p9/2024 has no season row (an orphan), one game has no player (a NULL key); p2/2024 is duplicated above.
    `INSERT INTO ${db}.player_games SELECT * FROM (` +
      [
        `SELECT 1, 'p1', '2024', ${days(3)}`,
        `SELECT 2, 'p2', '2024', ${days(2)}`,
        `SELECT 3, 'p9', '2024', ${days(2)}`,
        `SELECT 4, NULL, '2025', ${days(1)}`,
      ].join(" UNION ALL ") +
      ")",
    `CREATE TABLE ${db}.snowflake_orders (order_id UInt64, ordered_at DateTime) ENGINE = MergeTree ORDER BY order_id`,
    `INSERT INTO ${db}.snowflake_orders VALUES (1, now() - 3600), (2, now() - 7200)`,
  ];
}

describe.each(engineCases)("MetricFlow expressions as timestamp and key ($name)", (engine) => {
  const db = uniqueDatabase("mr_mf_expr");
  const scan = scanProject(engine, { db, file: "schema.yml", project: PROJECT, statements });
  const result = (metric: string, rule: string): TestResult => {
    const found = scan.run.results.find((r) => r.metric === metric && r.rule === rule);
    expect(found, `${metric} ${rule}`).toBeDefined();
    return found!;
  };

  it("compiles the expressions into the IR as timestamp and primary key", () => {
    expect(scan.snapshot.errors).toEqual([]);
    const metric = scan.snapshot.metricsByName.get("season_points")!;
    expect(metric).toMatchObject({ primary_key: "player_id || '-' || season", timestamp: "toStartOfDay(played_at)" });
    const rules = scan.snapshot.testsByMetric.get("season_points")!.map((t) => t.rule);
    for (const rule of [
      "primary_key_unique",
      "primary_key_not_null",
      "timestamp_not_future",
      "volume_anomaly",
      "metric_value_anomaly",
      "freshness_anomaly",
    ])
      expect(rules).toContain(rule);
    // The columns the expressions read must exist: schema drift in them is caught as such.
    const columns = scan.snapshot.testsByMetric.get("season_points")!.find((t) => t.rule === "columns_exist")!;
    expect(columns.check).toBe(`${db}.player_seasons has columns played_at, player_id, points, season, team`);
  });

  it("checks the expression key for duplicates and NULLs", () => {
    expect(result("season_points", "primary_key_unique")).toMatchObject({ status: "failing", rows_affected: 1, rows_total: 6 });
    expect(result("season_points", "primary_key_not_null")).toMatchObject({ status: "failing", rows_affected: 1, rows_total: 6 });
  });

  it("checks the expression timestamp for future rows and reads its series", () => {
    expect(result("season_points", "timestamp_not_future")).toMatchObject({ status: "failing", rows_affected: 1 });
    expect(result("season_points", "columns_exist").status).toBe("passing");
    // Read, not refused: too short a history to judge, which is not an error.
    for (const rule of ["volume_anomaly", "metric_value_anomaly"]) expect(result("season_points", rule).message).not.toMatch(/error/i);
  });

  it("joins on expression keys: integrity, uniqueness of the reached keys, NULL foreign keys", () => {
    expect(scan.snapshot.metricsByName.get("games_played")!.joins).toEqual([
      {
        table: `${db}.player_seasons`,
        from_table: `${db}.player_games`,
        type: "left",
        left_column: "player_id || '-' || season",
        right_column: "player_id || '-' || season",
        relationship: "many_to_one",
      },
    ]);
    expect(result("games_played", "join_referential_integrity")).toMatchObject({ status: "failing", rows_affected: 1, rows_total: 4 });
    // The seasons the games reach: p1/2024 once, p2/2024 twice.
    expect(result("games_played", "join_key_unique")).toMatchObject({ status: "failing", rows_affected: 1, rows_total: 3 });
    expect(result("games_played", "foreign_key_not_null")).toMatchObject({ rows_affected: 1, rows_total: 4 });
    expect(result("games_played", "foreign_key_not_null").status).not.toBe("passing");
  });

  it("names an expression ClickHouse cannot run as a finding, never a pass", () => {
    for (const rule of ["timestamp_not_future", "volume_anomaly", "freshness_anomaly"]) {
      const r = result("snowflake_order_count", rule);
      expect(r.status, rule).not.toBe("passing");
      expect(r.message, rule).toMatch(/TO_TIMESTAMP_NTZ|unknown function/i);
    }
  });
});
