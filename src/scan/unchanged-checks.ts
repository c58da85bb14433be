// Which checks must read the warehouse, and which keep the result of the last pass that read
// them: decided before planning, so the scan plans only the checks that must read. A check keeps its result when the SQL it would send is the same and every table that
// SQL reads (its base table, joined tables, tables of semi-joins and NOT IN subqueries) has the
// fingerprint it had then (plan/fingerprint-query.ts). Pure: fingerprints, the previous pass
// and the tests in, a decision out.
//
// The pair (basis, result) is only ever written together, and a basis names the exact data it
// was measured on, so a previous pass that is not the newest (another replica scanned since)
// is still correct to reuse: it can only be reused less.
import { createHash } from "node:crypto";
import type { CheckObservation } from "../evaluate/types.js";
import { observeStaleness } from "../evaluate/observe.js";
import type { CheckPass, PreviousCheck } from "../evaluate/check-pass.js";
import type { InferredTest } from "../infer/types.js";
import { clockDependence, type ClockDependence } from "../plan/clock-dependence.js";
import { skipReason } from "../plan/column-check.js";
import { adaptJoinKeys } from "../plan/join-keys.js";
import { probeExpressions, totalExpression } from "../plan/probe-sql.js";
import { tablesInSql } from "../plan/sql-tables.js";
import { readsNullable } from "../plan/table-groups.js";
import type { WarehouseSchema } from "../plan/types.js";

/**
 * Bump when the reading of a kept result changes (evaluate's messages, what a probe counts),
 * so results measured by an older release are read again once.
 */
const REUSE_EPOCH = "1";

/** What identifies a check's answer, apart from the data. */
export interface CheckIdentity {
  datasource: string;
  dependence: Exclude<ClockDependence, "always">;
  /** hash of the expressions it sends (filter, probe as adapted to the column types, NULL guards) */
  sql: string;
  /** every table its SQL reads, "database.table", sorted */
  tables: string[];
  /** `tables` joined: the key of printsOf's memo, made once (identities are kept across scans) */
  tablesKey: string;
}

export interface DatasourceFingerprints {
  /** "database.table" -> fingerprint; tables without one (views, Memory...) are absent */
  tables: ReadonlyMap<string, string>;
  /** the server's clock when the fingerprints were read (unix seconds) */
  serverNow: number | null;
}

const hash = (text: string): string => createHash("sha256").update(text, "utf8").digest("base64url").slice(0, 22);

/** A check that costs no read anyway: answered from the schema, or skipped by the planner (missing column, not applicable). */
export const NO_QUERY = "no_query";

/** An identity; NO_QUERY; or null: always read (its SQL reads the clock or a table that cannot be named, or its probe is unknown here). */
export type Identified = CheckIdentity | typeof NO_QUERY | null;

export function identifyCheck(test: InferredTest, schema: WarehouseSchema): Identified {
  if (test.probe.type === "schema") return NO_QUERY;
  const dependence = clockDependence(test);
  if (dependence === "always") return null;
  if (skipReason(test, schema) !== null) return NO_QUERY;
  const adapted = adaptJoinKeys(test, schema);
  if ("skip" in adapted) return NO_QUERY;
  // The filter as each aggregate's condition: the same text whichever query the planner puts
  // the check in, and the filter's subqueries are in it.
  const expressions = [
    totalExpression(test.filter),
    ...probeExpressions(adapted.test, test.filter, readsNullable(adapted.test, schema)),
  ].map((e) => e.expression ?? "count()");
  const read = tablesInSql(expressions.join("\n"));
  if (read.opaque !== null) return null;
  const tables = [
    ...new Set([test.table, ...test.columns.map((c) => c.table), ...test.filter_columns.map((c) => c.table), ...read.tables]),
  ].sort();
  return {
    datasource: test.datasource,
    dependence,
    sql: hash(JSON.stringify([REUSE_EPOCH, test.datasource, test.table, expressions])),
    tables,
    tablesKey: tables.join("\n"),
  };
}

/** One identity per distinct check key (the first test of a key stands for it). */
export function identifyChecks(tests: readonly InferredTest[], schema: WarehouseSchema): Map<string, Identified> {
  const identities = new Map<string, Identified>();
  for (const test of tests) if (!identities.has(test.key)) identities.set(test.key, identifyCheck(test, schema));
  return identities;
}

/** datasource -> the tables whose fingerprints the decision needs. */
export function tablesToFingerprint(identities: ReadonlyMap<string, Identified>): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const identity of identities.values()) {
    if (identity === null || identity === NO_QUERY) continue;
    const set = sets.get(identity.datasource) ?? new Set<string>();
    for (const table of identity.tables) set.add(table);
    sets.set(identity.datasource, set);
  }
  return new Map([...sets].map(([datasource, set]) => [datasource, [...set].sort()]));
}

/**
 * The hash of the fingerprints of the identity's tables, or null when a table it reads has none:
 * the second half of the check's basis (`${sql}.${prints}`, basisOf). `memo` (tables -> hash)
 * spares re-hashing the many checks of a table.
 */
function printsOf(
  identity: CheckIdentity,
  fingerprints: DatasourceFingerprints | undefined,
  memo: Map<string, string | null>,
): string | null {
  const names = identity.tablesKey;
  let prints = memo.get(names);
  if (prints === undefined) {
    const parts: string[] = [];
    for (const table of identity.tables) {
      const print = fingerprints?.tables.get(table);
      if (print === undefined) break;
      parts.push(`${table}=${print}`);
    }
    prints = parts.length === identity.tables.length ? hash(parts.join("\n")) : null;
    memo.set(names, prints);
  }
  return prints;
}

/** The check's basis now: its SQL hash and the hash of its tables' fingerprints. */
const basisOf = (identity: CheckIdentity, prints: string): string => `${identity.sql}.${prints}`;

/** Whether `basis` is basisOf(identity, prints), compared without building that string (30,000 checks a scan). */
const isBasis = (basis: string | undefined, identity: CheckIdentity, prints: string): boolean =>
  basis !== undefined &&
  basis.length === identity.sql.length + 1 + prints.length &&
  basis.startsWith(identity.sql) &&
  basis.endsWith(prints) &&
  basis[identity.sql.length] === ".";

export interface ReuseInput {
  tests: readonly InferredTest[];
  identities: ReadonlyMap<string, Identified>;
  /** per datasource */
  fingerprints: ReadonlyMap<string, DatasourceFingerprints>;
  previous: ReadonlyMap<string, PreviousCheck>;
}

export interface ReuseDecision {
  /** tests to plan and send (every test of a key that keeps no result) */
  read: InferredTest[];
  /** key -> the result kept (freshness judged again with the server's clock) */
  carried: Map<string, CheckObservation>;
  /** key -> basis now, for every check whose tables all have a fingerprint, but those kept as they were (`unchanged`) */
  bases: Map<string, string>;
  /** distinct checks: kept as they were, kept with their age judged again, sent to the warehouse, answered without a query */
  counts: { kept: number; rejudged: number; read: number; no_query: number };
  /** keys kept as they were: their result and basis are the previous pass's, nothing to write */
  unchanged: Set<string>;
}

/** The kept result of one check, or null when it must be read. */
function keep(
  test: InferredTest,
  identity: CheckIdentity,
  previous: PreviousCheck,
  fingerprints: DatasourceFingerprints | undefined,
): { observation: CheckObservation; rejudged: boolean } | null {
  const observation = previous.observation;
  // Only a measured answer is kept: "not evaluated" may have been transient.
  if (observation.outcome !== "measured") return null;
  switch (identity.dependence) {
    case "none":
      return { observation, rejudged: false };
    case "not_future":
      // Rows after now() + skew only become fewer as the clock moves on: none stays none.
      return observation.rows_affected === 0 ? { observation, rejudged: false } : null;
    case "staleness": {
      if (test.probe.type !== "staleness") return null;
      // No rows or no timestamps: nothing the clock can change.
      if (previous.newest === null) return { observation, rejudged: false };
      const now = fingerprints?.serverNow;
      if (now === null || now === undefined) return null;
      const judged = observeStaleness(test.probe.maxSeconds, observation.rows_total, { max_ts: previous.newest, now });
      return {
        observation: { ...judged, ...(observation.sample_sql !== undefined ? { sample_sql: observation.sample_sql } : {}) },
        rejudged: true,
      };
    }
  }
}

/**
 * decideReuse fed in slices (a catalogue of 100,000 tests yields between them). `addDistinct`
 * takes tests of distinct keys (one per check, as incremental.ts has them): no set of the keys
 * seen, and the tests to read are those it was given that keep nothing.
 */
export function createReuseDecider(input: Omit<ReuseInput, "tests">): {
  add(tests: readonly InferredTest[]): void;
  addDistinct(tests: readonly InferredTest[]): void;
  result(): ReuseDecision;
} {
  const carried = new Map<string, CheckObservation>();
  const bases = new Map<string, string>();
  const counts = { kept: 0, rejudged: 0, read: 0, no_query: 0 };
  const unchanged = new Set<string>();
  const decided = new Set<string>();
  const all: InferredTest[] = [];
  const memos = new Map<string, Map<string, string | null>>(); // per datasource: tables -> fingerprints hash
  const memoFor = (datasource: string) => {
    let memo = memos.get(datasource);
    if (!memo) memos.set(datasource, (memo = new Map<string, string | null>()));
    return memo;
  };
  const read: InferredTest[] = [];
  /** Whether the check keeps a result (else it is read). */
  const decide = (test: InferredTest): boolean => {
    const identified = input.identities.get(test.key) ?? null;
    if (identified === NO_QUERY) {
      counts.no_query += 1;
      return false;
    }
    const identity = identified;
    const fingerprints = identity ? input.fingerprints.get(identity.datasource) : undefined;
    const prints = identity ? printsOf(identity, fingerprints, memoFor(identity.datasource)) : null;
    const previous = input.previous.get(test.key);
    const kept =
      identity && prints !== null && isBasis(previous?.basis, identity, prints) ? keep(test, identity, previous!, fingerprints) : null;
    // A check kept as it was needs no basis: the store keeps the one it has (passRecords).
    if (identity && prints !== null && kept?.rejudged !== false) bases.set(test.key, basisOf(identity, prints));
    if (kept === null) {
      counts.read += 1;
      return false;
    }
    carried.set(test.key, kept.observation);
    if (kept.rejudged) counts.rejudged += 1;
    else {
      counts.kept += 1;
      unchanged.add(test.key);
    }
    return true;
  };
  return {
    add(tests) {
      for (const test of tests) {
        all.push(test);
        if (decided.has(test.key)) continue;
        decided.add(test.key);
        decide(test);
      }
    },
    addDistinct(tests) {
      for (const test of tests) if (!decide(test)) read.push(test);
    },
    // Every test of a key read; add()'s later tests of a key are only known to it here.
    result: () => ({ read: all.length === 0 ? read : all.filter((test) => !carried.has(test.key)), carried, bases, counts, unchanged }),
  };
}

export function decideReuse(input: ReuseInput): ReuseDecision {
  const decider = createReuseDecider(input);
  decider.add(input.tests);
  return decider.result();
}

/**
 * What the store keeps beside each result of this pass: the basis of every measured check whose
 * tables all have a fingerprint, null to forget the basis of a check that now has none (its
 * result is no longer tied to known data). Checks this pass did not observe, and checks kept as
 * they were (`decision.unchanged`), are left out.
 */
export function passRecords(
  decision: ReuseDecision,
  observations: ReadonlyMap<string, CheckObservation>,
  previous: ReadonlyMap<string, PreviousCheck>,
): Map<string, CheckPass | null> {
  const records = new Map<string, CheckPass | null>();
  for (const [key, observation] of observations) {
    if (decision.unchanged.has(key)) continue; // the previous pass's, as it is in the store
    const basis = decision.bases.get(key);
    if (basis !== undefined && observation.outcome === "measured") records.set(key, { basis, newest: observation.newest ?? null });
    else if (previous.has(key)) records.set(key, null);
  }
  return records;
}
