// The bisection steps on plain values. The walk below answers queries with a rule (a query fails
// when it computes a throwing check or reads a throwing filter), which is what ClickHouse does
// to the aggregate query of a table; the real engines are in test/correctness/isolate-failures.test.ts.
import { describe, expect, it } from "vitest";
import type { InferredTest } from "../../src/infer/types.js";
import {
  causeQuery,
  failingSql,
  halves,
  isolationStep,
  refusedTests,
  rowsProbe,
  subsetQueries,
  withIsolation,
  type FilterState,
} from "../../src/plan/isolate-plan.js";
import { planScan } from "../../src/plan/plan-scan.js";
import { SCHEMA, col, makeTest } from "./make-test.js";

const BIG = 262_144;

const check = (i: number, filter: string | null = null): InferredTest =>
  makeTest({
    rule: "measure_not_null",
    key: `k${i}|${filter ?? ""}`,
    check: `c${i} IS NOT NULL`,
    filter,
    columns: [col("amount")],
    probe: { type: "rows_where", violation: `isNull(\`amount\`) AND ${i} = ${i}` },
  });

/**
 * Walks the steps as isolate-failures.ts does, against a rule instead of a warehouse; returns the
 * queries it sent and what it found.
 */
function walk(tests: InferredTest[], throws: (test: InferredTest) => boolean, badFilters: ReadonlySet<string> = new Set()) {
  const filters = new Map<string | null, FilterState>([[null, "readable"]]);
  let queries = 0;
  const isolated: string[] = [];
  const underFilter: string[] = [];
  const fails = (set: InferredTest[]) => set.some((t) => throws(t) || (t.filter !== null && badFilters.has(t.filter)));
  const search = (set: InferredTest[]): void => {
    const { underFailedFilter, step } = isolationStep(set, filters);
    underFilter.push(...underFailedFilter.map((t) => t.key));
    if (step === null) return;
    if (step.kind === "probe_filter") {
      queries += 1;
      filters.set(step.filter, step.filter !== null && badFilters.has(step.filter) ? "throws" : "readable");
      return search(set);
    }
    if (step.kind === "isolated") {
      isolated.push(step.test.key);
      return;
    }
    for (const part of step.kind === "retry" ? [step.tests] : step.halves) {
      queries += 1;
      if (fails(part)) search(part);
    }
  };
  search(tests);
  return { queries, isolated, underFilter };
}

describe("isolationStep", () => {
  it("finds one throwing check among n in at most 2 * ceil(log2 n) queries", () => {
    for (const n of [2, 3, 5, 16, 17, 100, 1000]) {
      const tests = Array.from({ length: n }, (_, i) => check(i));
      for (const bad of [0, Math.floor(n / 2), n - 1]) {
        const found = walk(tests, (t) => t.key === tests[bad]!.key);
        expect(found.isolated).toEqual([tests[bad]!.key]);
        expect(found.queries).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)));
      }
    }
  });

  it("finds every throwing check, and only those", () => {
    const tests = Array.from({ length: 40 }, (_, i) => check(i));
    const bad = new Set([3, 4, 31]);
    const found = walk(tests, (t) => bad.has(Number(/^k(\d+)/.exec(t.key)![1])));
    expect(found.isolated.sort()).toEqual(["k31|", "k3|", "k4|"]);
  });

  it("blames a throwing filter for its tests with one probe, without querying them one by one", () => {
    const plain = Array.from({ length: 6 }, (_, i) => check(i));
    const filtered = Array.from({ length: 6 }, (_, i) => check(10 + i, "throwIf(x) = 0"));
    const found = walk([...plain, ...filtered], () => false, new Set(["throwIf(x) = 0"]));
    expect(found.isolated).toEqual([]);
    expect(found.underFilter.sort()).toEqual(filtered.map((t) => t.key).sort());
    expect(found.queries).toBeLessThanOrEqual(2 + 1); // the halves, one probe of the filter
  });

  it("never blames a check for a throwing filter it shared a query with: the rest are queried again", () => {
    const good = check(1, "a = 1");
    const bad = check(2, "throwIf(x) = 0");
    const found = walk([good, bad], () => false, new Set(["throwIf(x) = 0"]));
    expect(found).toMatchObject({ isolated: [], underFilter: [bad.key] });
    const filters = new Map<string | null, FilterState>([
      ["throwIf(x) = 0", "throws"],
      ["a = 1", "readable"],
    ]);
    expect(isolationStep([good, bad], filters)).toEqual({ underFailedFilter: [bad], step: { kind: "retry", tests: [good] } });
  });

  it("probes a filter before blaming the last check under it, and the table's rows are never probed twice", () => {
    const only = check(1, "a = 1");
    expect(isolationStep([only], new Map([[null, "readable"]])).step).toEqual({ kind: "probe_filter", filter: "a = 1" });
    expect(isolationStep([only], new Map<string | null, FilterState>([["a = 1", "readable"]])).step).toEqual({
      kind: "isolated",
      test: only,
    });
    expect(isolationStep([only], new Map<string | null, FilterState>([["a = 1", "throws"]]))).toEqual({
      underFailedFilter: [only],
      step: null,
    });
    expect(isolationStep([check(2)], new Map([[null, "readable"]])).step).toEqual({ kind: "isolated", test: check(2) });
  });
});

describe("the queries of a bisection", () => {
  const a = check(1);
  const b = check(2, "status = 'completed'");
  const c = check(3);
  const plan = planScan([a, b, c], SCHEMA, { maxQuerySize: BIG });
  const refused = plan.queries[0]!;

  it("orders a refused query's tests by filter, and halves them", () => {
    expect(refusedTests(plan, refused).map((t) => t.key)).toEqual([a.key, c.key, b.key]);
    expect(halves([1, 2, 3])).toEqual([[1, 2], [3]]);
    expect(halves([])).toEqual([[], []]);
  });

  it("plans a subset as the planner would, a rows probe and a cause count", () => {
    let n = 0;
    const [part] = subsetQueries([a, b], SCHEMA, { maxQuerySize: BIG }, () => `q1-i${(n += 1)}`);
    expect(part).toMatchObject({ id: "q1-i1", filters: [null, "status = 'completed'"] });
    expect([...new Set(part!.outputs.map((o) => o.test_key))]).toEqual([a.key, b.key]);
    expect(rowsProbe(refused, "status = 'completed'", "q1-i2").sql).toBe(
      "SELECT count() AS total FROM `shop`.`orders` WHERE (status = 'completed')",
    );
    expect(rowsProbe(refused, null, "q1-i3").sql).toBe("SELECT count() AS total FROM `shop`.`orders`");
    expect(causeQuery(refused, null, { count: "countIf(isNull(`d`))", cause: "NULL d" }, "q1-i4").sql).toBe(
      "SELECT count() AS total, countIf(isNull(`d`)) AS c1 FROM `shop`.`orders`",
    );
    expect(failingSql(b, "filter")).toBe("status = 'completed'");
    expect(failingSql(a, "check")).toBe("ifNull(countIf(isNull(`amount`) AND 1 = 1), 0)");
  });

  it("replaces the refused query by what answered and records the failed checks", () => {
    const [part] = subsetQueries([a, c], SCHEMA, { maxQuerySize: BIG }, () => "q1-i1");
    const failed = { test_key: b.key, part: "check" as const, error: "e", rows_total: 3, rows_affected: null, cause: null };
    const next = withIsolation(plan, "q1", [part!], [failed]);
    expect(next.queries.map((q) => q.id)).toEqual(["q1-i1"]);
    expect(next.failed).toEqual([failed]);
    expect(withIsolation(plan, "q9", [], [])).toBe(plan);
  });
});
