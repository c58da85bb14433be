// Which tests share a warehouse query: all runnable tests of one (datasource, table), with
// their filters folded into the aggregates. Each group becomes one query, split only past
// max_query_size (and, when ClickHouse refuses it, bisected: scan/isolate-failures.ts).
import type { InferredTest } from "../infer/types.js";
import { quoteTable } from "../sql/identifiers.js";
import { probeExpressions, totalExpression } from "./probe-sql.js";
import { QueryDraft } from "./query-draft.js";
import type { WarehouseSchema } from "./types.js";

export interface TableGroup {
  datasource: string;
  table: string;
  /** distinct filters of the group's tests, null (no filter) first, then sorted */
  filters: (string | null)[];
  tests: InferredTest[];
}

const filterKey = (filter: string | null): string => (filter === null ? "0" : `1${filter}`);

function compareGroups(a: TableGroup, b: TableGroup): number {
  const left = [a.datasource, a.table, ...a.filters.map(filterKey)];
  const right = [b.datasource, b.table, ...b.filters.map(filterKey)];
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    if (left[i] === right[i]) continue;
    if (left[i] === undefined) return -1;
    if (right[i] === undefined) return 1;
    return left[i]! < right[i]! ? -1 : 1;
  }
  return 0;
}

/** One group per (datasource, table). */
export function groupTests(tests: InferredTest[]): TableGroup[] {
  const groups = new Map<string, TableGroup>();
  for (const test of tests) {
    const id = JSON.stringify([test.datasource, test.table]);
    let group = groups.get(id);
    if (!group) {
      group = { datasource: test.datasource, table: test.table, filters: [], tests: [] };
      groups.set(id, group);
    }
    if (!group.filters.includes(test.filter)) group.filters.push(test.filter);
    group.tests.push(test);
  }
  for (const group of groups.values())
    group.filters.sort((a, b) => (filterKey(a) < filterKey(b) ? -1 : filterKey(a) > filterKey(b) ? 1 : 0));
  // Sorted, so query ids do not depend on the order metrics were loaded in.
  return [...groups.values()].sort(compareGroups);
}

/**
 * The WHERE of a group's query and whether each aggregate must carry its test's filter:
 * - one filter (or none): WHERE (f), plain aggregates;
 * - several filters, all non-null: WHERE (f1) OR (f2) ..., so rows outside every filter are
 *   not read, and each aggregate is conditioned on its own filter;
 * - several filters including "no filter": no WHERE, conditioned aggregates.
 */
function whereOf(group: TableGroup): { where: string | null; conditioned: boolean } {
  const [only, ...more] = group.filters;
  if (more.length === 0) return { where: only ?? null, conditioned: false };
  if (group.filters.includes(null)) return { where: null, conditioned: true };
  return { where: group.filters.map((f) => `(${f})`).join(" OR "), conditioned: true };
}

/** A probe reads a Nullable column (or one whose type is unknown): it keeps its NULL guards. */
export function readsNullable(test: InferredTest, schema: WarehouseSchema): boolean {
  const tables = schema[test.datasource] ?? {};
  return test.columns.some((ref) => {
    const type = tables[ref.table]?.[ref.column];
    return type === undefined || /^(LowCardinality\()?Nullable\(/.test(type.trim());
  });
}

/** Greedy packing in test order; a test's outputs never straddle two queries. */
export function draftsFor(group: TableGroup, schema: WarehouseSchema, budget: number): QueryDraft[] {
  const { where, conditioned } = whereOf(group);
  const tail = ` FROM ${quoteTable(group.table)}` + (where === null ? "" : ` WHERE (${where})`);
  const drafts = [new QueryDraft(tail)];
  for (const test of group.tests) {
    const condition = conditioned ? test.filter : null;
    const expressions = [totalExpression(condition), ...probeExpressions(test, condition, readsNullable(test, schema))];
    let draft = drafts[drafts.length - 1]!;
    // A single test longer than the limit still gets its own query; the warehouse's
    // error then reports it (not evaluated) rather than it vanishing silently.
    if (!draft.isEmpty && draft.lengthWith(expressions) > budget) {
      draft = new QueryDraft(tail);
      drafts.push(draft);
    }
    draft.add(test.key, expressions);
  }
  return drafts;
}
