// Turns inferred tests into the fewest warehouse queries: one SELECT per
// (datasource, table, filter), split only when it would pass max_query_size.
import type { InferredTest } from "../infer/types.js";
import { quoteTable } from "../sql/identifiers.js";
import { skipReason } from "./column-check.js";
import { adaptJoinKeys } from "./join-keys.js";
import { probeExpressions } from "./probe-sql.js";
import { QueryDraft } from "./query-draft.js";
import type { ScanPlan, TableQuery, WarehouseSchema } from "./types.js";

export interface PlanOptions {
  /** bytes; ClickHouse's max_query_size (default 262144), which the warehouse's text must fit */
  maxQuerySize: number;
}

/**
 * Bytes the warehouse adds around a planned query, kept free below maxQuerySize: chdb wraps
 * it in a leading query-id comment (the id is up to 200 bytes) and a trailing SETTINGS clause
 * (about 100 bytes); the server client appends "\nFORMAT JSONEachRow". Both count toward
 * ClickHouse's max_query_size, so a query planned right at the limit would be refused.
 */
export const QUERY_WRAPPER_BYTES = 512;

interface Group {
  datasource: string;
  table: string;
  filter: string | null;
  tests: InferredTest[];
}

/** Tests shared across metrics carry the same key and run once: keep the first. */
export function dedupeTests(tests: InferredTest[]): InferredTest[] {
  const byKey = new Map<string, InferredTest>();
  for (const test of tests) if (!byKey.has(test.key)) byKey.set(test.key, test);
  return [...byKey.values()];
}

function compareGroups(a: Group, b: Group): number {
  const left = [a.datasource, a.table, a.filter === null ? "0" : `1${a.filter}`];
  const right = [b.datasource, b.table, b.filter === null ? "0" : `1${b.filter}`];
  for (let i = 0; i < left.length; i += 1) {
    if (left[i]! < right[i]!) return -1;
    if (left[i]! > right[i]!) return 1;
  }
  return 0;
}

function groupTests(tests: InferredTest[]): Group[] {
  const groups = new Map<string, Group>();
  for (const test of tests) {
    const id = JSON.stringify([test.datasource, test.table, test.filter]);
    let group = groups.get(id);
    if (!group) {
      group = { datasource: test.datasource, table: test.table, filter: test.filter, tests: [] };
      groups.set(id, group);
    }
    group.tests.push(test);
  }
  // Sorted, so query ids do not depend on the order metrics were loaded in.
  return [...groups.values()].sort(compareGroups);
}

/** Greedy packing in test order; a test's outputs never straddle two queries. */
function draftsFor(group: Group, maxQuerySize: number): QueryDraft[] {
  const tail = ` FROM ${quoteTable(group.table)}` + (group.filter === null ? "" : ` WHERE (${group.filter})`);
  const drafts = [new QueryDraft(tail)];
  for (const test of group.tests) {
    const expressions = probeExpressions(test);
    let draft = drafts[drafts.length - 1]!;
    // A single test longer than the limit still gets its own query; the warehouse's
    // error then reports it as "not evaluated" rather than it vanishing silently.
    if (!draft.isEmpty && draft.lengthWith(expressions) > maxQuerySize - QUERY_WRAPPER_BYTES) {
      draft = new QueryDraft(tail);
      drafts.push(draft);
    }
    draft.add(test.key, expressions);
  }
  return drafts;
}

export function planScan(tests: InferredTest[], schema: WarehouseSchema, options: PlanOptions): ScanPlan {
  const distinct: InferredTest[] = [];
  const skipped: ScanPlan["skipped"] = [];
  const samples: ScanPlan["sample_sql"] = {};
  const runnable: InferredTest[] = [];
  for (const test of dedupeTests(tests)) {
    // Schema tests are answered from system.columns by evaluate: a missing column is
    // their finding, not a reason to skip them.
    if (test.probe.type === "schema") {
      distinct.push(test);
      continue;
    }
    const reason = skipReason(test, schema);
    const adapted = reason === null ? adaptJoinKeys(test, schema) : { reason };
    if ("reason" in adapted) {
      distinct.push(test);
      skipped.push({ test_key: test.key, reason: adapted.reason });
      continue;
    }
    distinct.push(adapted.test);
    runnable.push(adapted.test);
    if (adapted.test.sample_sql !== test.sample_sql) samples[test.key] = adapted.test.sample_sql;
  }

  const queries: TableQuery[] = [];
  for (const group of groupTests(runnable)) {
    for (const draft of draftsFor(group, options.maxQuerySize)) {
      queries.push({
        id: `q${queries.length + 1}`,
        datasource: group.datasource,
        table: group.table,
        filter: group.filter,
        sql: draft.sql(),
        outputs: draft.outputs,
      });
    }
  }
  return { tests: distinct, queries, skipped, sample_sql: samples };
}
