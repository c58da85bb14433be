import { describe, expect, it } from "vitest";
import type { CheckObservation } from "../../src/evaluate/types.js";
import { inferTests } from "../../src/infer/infer.js";
import type { InferredTest } from "../../src/infer/types.js";
import { fingerprintQuery, fingerprintsFromRows, type FingerprintRow } from "../../src/plan/fingerprint-query.js";
import {
  createReuseDecider,
  decideReuse,
  identifyCheck,
  identifyChecks,
  NO_QUERY,
  passRecords,
  tablesToFingerprint,
  type CheckIdentity,
  type DatasourceFingerprints,
} from "../../src/scan/unchanged-checks.js";
import type { PreviousCheck } from "../../src/evaluate/check-pass.js";
import type { WarehouseSchema } from "../../src/plan/types.js";
import { structured } from "../infer/fixtures.js";

const SCHEMA: WarehouseSchema = {
  default: {
    "shop.orders": { id: "UInt64", amount: "Nullable(Float64)", customer_id: "UInt64", created_at: "DateTime", status: "String" },
    "shop.customers": { id: "UInt64", segment: "Nullable(String)", region_id: "UInt32" },
    "shop.regions": { id: "UInt32", name: "String" },
    "shop.orders_view": { id: "UInt64", amount: "Nullable(Float64)" },
  },
};

const ORDERS = structured({
  name: "revenue",
  table: "shop.orders",
  timestamp: "created_at",
  freshness_seconds: 3600,
  measures: [{ alias: "revenue", function: "Sum", column: "amount" }],
  dimensions: [{ name: "region", column: "name", source_table: "shop.regions" }],
  joins: [
    { table: "shop.customers", type: "left", left_column: "customer_id", right_column: "id", relationship: "many_to_one" },
    {
      table: "shop.regions",
      from_table: "shop.customers",
      type: "left",
      left_column: "region_id",
      right_column: "id",
      relationship: "many_to_one",
    },
  ],
});
const TESTS = inferTests(ORDERS, [ORDERS]);
const VIEW = inferTests(structured({ name: "view_revenue", table: "shop.orders_view" }), []);

const find = (rule: string, table = "shop.orders"): InferredTest => TESTS.find((t) => t.rule === rule && t.table === table)!;
const measured = (rows_affected: number, rows_total: number, message = `${rows_affected} of ${rows_total}`): CheckObservation => ({
  outcome: "measured",
  rows_affected,
  rows_total,
  message,
});

function prints(overrides: Record<string, string> = {}, serverNow = 1_000_000): Map<string, DatasourceFingerprints> {
  const tables = new Map([["shop.orders", "o1"], ["shop.customers", "c1"], ["shop.regions", "r1"], ...Object.entries(overrides)]);
  return new Map([["default", { tables, serverNow }]]);
}

/** The pass a full scan leaves: every check with a basis measured as `observe` says. */
function firstPass(
  tests: InferredTest[],
  fingerprints: Map<string, DatasourceFingerprints>,
  observe: (t: InferredTest) => CheckObservation,
): Map<string, PreviousCheck> {
  const identities = identifyChecks(tests, SCHEMA);
  const decision = decideReuse({ tests, identities, fingerprints, previous: new Map() });
  expect(decision.carried.size).toBe(0);
  const observations = new Map(decision.read.map((t) => [t.key, observe(t)]));
  const records = passRecords(decision, observations, new Map());
  const previous = new Map<string, PreviousCheck>();
  for (const [key, record] of records) if (record) previous.set(key, { ...record, observation: observations.get(key)! });
  return previous;
}

/** The identity of a check that keeps results on unchanged tables. */
function keyed(test: InferredTest, schema = SCHEMA): CheckIdentity {
  const identity = identifyCheck(test, schema);
  if (identity === null || identity === NO_QUERY) throw new Error(`${test.key} has no identity`);
  return identity;
}

describe("identifyCheck", () => {
  it("lists every table the check's SQL reads: the base table, NOT IN subqueries and semi-joins hop by hop", () => {
    expect(keyed(find("measure_not_null")).tables).toEqual(["shop.orders"]);
    expect(keyed(find("join_referential_integrity")).tables).toEqual(["shop.customers", "shop.orders"]);
    // regions' checks run on the rows the metric reaches: customers reached from orders.
    const regionKey = find("join_key_unique", "shop.regions");
    expect(regionKey.filter).toContain("FROM `shop`.`customers`");
    expect(keyed(regionKey).tables).toEqual(["shop.customers", "shop.orders", "shop.regions"]);
  });

  it("changes its SQL hash with the SQL sent (filter, NULL guards from the column types), not with the metric", () => {
    const test = find("measure_not_null");
    const sql = keyed(test).sql;
    expect(keyed({ ...test, metric: "other" }).sql).toBe(sql);
    expect(keyed({ ...test, filter: "status = 'x'" }).sql).not.toBe(sql);
    const ri = find("join_referential_integrity");
    const widened: WarehouseSchema = {
      default: { ...SCHEMA.default!, "shop.customers": { ...SCHEMA.default!["shop.customers"]!, id: "UInt32" } },
    };
    expect(keyed(ri, widened).sql).not.toBe(keyed(ri).sql);
  });

  it("has none for checks never kept: no query (schema checks, skipped probes); always read (the clock in the filter, unnamed tables)", () => {
    expect(identifyCheck(find("columns_exist"), SCHEMA)).toBe(NO_QUERY);
    expect(identifyCheck(find("measure_not_null"), { default: {} })).toBe(NO_QUERY);
    expect(identifyCheck({ ...find("measure_not_null"), filter: "created_at > now() - 86400" }, SCHEMA)).toBeNull();
    expect(identifyCheck({ ...find("measure_not_null"), filter: "id IN (SELECT id FROM vip)" }, SCHEMA)).toBeNull();
  });

  it("asks for the fingerprints of every table read, per datasource", () => {
    expect(tablesToFingerprint(identifyChecks([...TESTS, ...VIEW], SCHEMA))).toEqual(
      new Map([["default", ["shop.customers", "shop.orders", "shop.orders_view", "shop.regions"]]]),
    );
  });
});

describe("decideReuse", () => {
  const all = [...TESTS, ...VIEW];
  const identities = identifyChecks(all, SCHEMA);
  const observe = (t: InferredTest) =>
    t.probe.type === "staleness"
      ? { ...measured(0, 100, "newest row is 10m old (allowed 1h)"), newest: 1_000_000 - 600 }
      : measured(t.rule === "join_referential_integrity" ? 3 : 0, 100);
  const fingerprints = prints();
  const previous = firstPass(all, fingerprints, observe);

  it("decides the same fed one test per check in slices (addDistinct), as incremental scans feed it", () => {
    const whole = decideReuse({ tests: all, identities, fingerprints, previous });
    const distinct = [...new Map(all.map((t) => [t.key, t])).values()];
    const decider = createReuseDecider({ identities, fingerprints, previous });
    decider.addDistinct(distinct.slice(0, 5));
    decider.addDistinct(distinct.slice(5));
    const sliced = decider.result();
    expect(sliced.carried).toEqual(whole.carried);
    expect(sliced.counts).toEqual(whole.counts);
    expect(sliced.unchanged).toEqual(whole.unchanged);
    expect(sliced.bases).toEqual(whole.bases);
    expect(sliced.read.map((t) => t.key)).toEqual([...new Set(whole.read.map((t) => t.key))]);
  });

  it("keeps every result on unchanged tables and reads only what has no fingerprint (a view)", () => {
    const decision = decideReuse({ tests: all, identities, fingerprints, previous });
    const read = new Set(decision.read.map((t) => t.key));
    const viewKeys = new Set(VIEW.map((t) => t.key));
    // Read again: the view's checks, and the schema checks (answered from system.columns, no table read).
    for (const test of decision.read) expect(viewKeys.has(test.key) || test.probe.type === "schema").toBe(true);
    expect(read.has(find("measure_not_null").key)).toBe(false);
    expect(decision.carried.get(find("join_referential_integrity").key)).toEqual(measured(3, 100));
    expect(decision.counts.rejudged).toBe(1); // the freshness check, judged again with the server's clock
    expect(decision.counts.read).toBe(new Set(VIEW.filter((t) => t.probe.type !== "schema").map((t) => t.key)).size);
    expect(decision.unchanged.has(find("measure_not_null").key)).toBe(true);
    expect(decision.unchanged.has(find("freshness").key)).toBe(false);
    // a basis only where the store is written: not for the checks kept as they were
    expect(decision.bases.has(find("measure_not_null").key)).toBe(false);
    expect(decision.bases.get(find("freshness").key)).toBe(previous.get(find("freshness").key)!.basis);
  });

  it("reads exactly the checks whose SQL reads a changed table, through joins and semi-joins too", () => {
    const decision = decideReuse({ tests: all, identities, fingerprints: prints({ "shop.customers": "c2" }), previous });
    const read = decision.read.filter((t) => t.probe.type !== "schema" && !VIEW.includes(t));
    const expected = all.filter((t) => {
      const identity = identities.get(t.key);
      return identity !== null && identity !== NO_QUERY && identity?.tables.includes("shop.customers");
    });
    expect(new Set(read.map((t) => t.key))).toEqual(new Set(expected.map((t) => t.key)));
    expect(read.map((t) => t.key)).toContain(find("join_referential_integrity").key); // orders' NOT IN over customers
    expect(read.map((t) => t.key)).toContain(find("join_key_unique", "shop.regions").key); // regions reached through customers
    expect(read.map((t) => t.key)).not.toContain(find("measure_not_null").key);
  });

  it("judges freshness again with the server's clock: an unchanged table goes stale without a read", () => {
    const later = decideReuse({ tests: all, identities, fingerprints: prints({}, 1_000_000 + 3600), previous });
    expect(later.carried.get(find("freshness").key)).toEqual({
      ...measured(1, 100, "newest row is 1h 10m old (allowed 1h)"),
      newest: 1_000_000 - 600,
    });
  });

  it("keeps a future-timestamp count of 0, reads any other again (it can shrink as the clock moves)", () => {
    const future = find("timestamp_not_future");
    const withFuture = new Map(previous);
    withFuture.set(future.key, { ...previous.get(future.key)!, observation: measured(2, 100) });
    expect(decideReuse({ tests: all, identities, fingerprints, previous }).carried.has(future.key)).toBe(true);
    expect(decideReuse({ tests: all, identities, fingerprints, previous: withFuture }).carried.has(future.key)).toBe(false);
  });

  it("never keeps what was not measured, and forgets its basis", () => {
    const test = find("measure_not_null");
    const failed = new Map(previous);
    failed.set(test.key, { ...previous.get(test.key)!, observation: { ...measured(0, 0), outcome: "not_evaluated" } });
    const decision = decideReuse({ tests: all, identities, fingerprints, previous: failed });
    expect(decision.carried.has(test.key)).toBe(false);
    const records = passRecords(decision, new Map([[test.key, { ...measured(0, 0), outcome: "not_evaluated" as const }]]), failed);
    expect(records.get(test.key)).toBeNull();
  });

  it("records the basis of each measured check, with the newest timestamp of freshness", () => {
    const decision = decideReuse({ tests: all, identities, fingerprints: prints({ "shop.orders": "o2" }), previous });
    const fresh = find("freshness");
    const records = passRecords(decision, new Map([[fresh.key, { ...measured(0, 120), newest: 999_999 }]]), previous);
    expect(records.get(fresh.key)).toEqual({ basis: decision.bases.get(fresh.key), newest: 999_999 });
    expect(decision.bases.get(fresh.key)).not.toBe(previous.get(fresh.key)!.basis);
  });
});

describe("fingerprints", () => {
  it("are read in one query over system.tables and system.parts, for the given tables only", () => {
    const sql = fingerprintQuery(["shop.orders", "shop.customers", "not a table"]);
    expect(sql).toContain("FROM system.tables AS t ANY LEFT JOIN (SELECT database, table AS name");
    expect(sql).toContain("FROM system.parts WHERE active AND ((database = 'shop' AND table IN ('customers', 'orders')))");
    expect(sql).toContain("WHERE (t.database = 'shop' AND t.name IN ('customers', 'orders'))");
    expect(fingerprintQuery(["a.x", "b.y", "a.z"])).toContain(
      "((database = 'a' AND table IN ('x', 'z')) OR (database = 'b' AND table IN ('y')))",
    );
    expect(sql).not.toContain("not a table");
    expect(fingerprintQuery([])).toContain("WHERE 0");
  });

  it("exist for MergeTree-family engines only; every other engine is read every scan", () => {
    const row = (table: string, engine: string, parts = "2"): FingerprintRow => ({
      database: "shop",
      table,
      engine,
      metadata_modified: "100",
      parts,
      rows: "10",
      bytes: "900",
      modified: "200",
      data_version: "3",
      names: "1234",
      now: "5000",
    });
    const read = fingerprintsFromRows([
      row("orders", "MergeTree"),
      row("events", "ReplicatedReplacingMergeTree"),
      row("empty", "MergeTree", "0"),
      row("v", "View", "0"),
      row("m", "Memory", "0"),
      row("d", "Distributed", "0"),
    ]);
    expect([...read.tables.keys()]).toEqual(["shop.orders", "shop.events", "shop.empty"]);
    expect(read.tables.get("shop.orders")).toBe("MergeTree:100:2:10:900:200:3:1234");
    expect(read.engines.get("shop.v")).toBe("View");
    expect(read.serverNow).toBe(5000);
    // freshness_anomaly's loads: the active parts' rows and newest modification time, MergeTree only.
    expect(read.parts.get("shop.orders")).toEqual({ rows: 10, fingerprint: "MergeTree:100:2:10:900:200:3:1234", modified: 200 });
    expect(read.parts.has("shop.v")).toBe(false);
    expect(fingerprintsFromRows([]).serverNow).toBeNull();
  });
});
