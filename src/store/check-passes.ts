// check_passes: the basis each check's current result was measured under (scan/unchanged-checks.ts). It is
// written in completeScan's transaction beside the results, only where it changed, so scans of
// unchanged data write nothing; read back (with the open results) by the next scan, on this
// replica after a restart or on any other.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { PreviousCheck } from "../evaluate/check-pass.js";
import { checkId } from "./check-id.js";
import { createIntern } from "../intern.js";
import { toObservation, type ObservationRow } from "./mapping.js";
import type { Sql } from "./sql-session.js";
import type { FinishedScan } from "./store.js";
import { toColumnArrays, unnestFrom } from "./unnest.js";

const PAGE = 5_000;
const PASS_COLUMNS = { check_id: "bigint", basis: "text", newest: "bigint" };

export async function writePasses(sql: Sql, scan: FinishedScan): Promise<void> {
  // A full scan (SCAN_INCREMENTAL=false) replaced results without tracking their bases: every
  // basis kept so far may now sit beside a newer result, so all are forgotten.
  if (!scan.passes) {
    await sql(`DELETE FROM "check_passes"`);
    return;
  }
  const kept: (string | null)[][] = [];
  const forgotten: string[] = [];
  for (const [key, pass] of scan.passes) {
    if (pass === null) forgotten.push(checkId(key));
    else kept.push([checkId(key), pass.basis, pass.newest === null ? null : String(Math.trunc(pass.newest))]);
  }
  if (kept.length > 0) {
    const n = Object.keys(PASS_COLUMNS).length;
    // Rows whose basis and newest are unchanged are not rewritten (no dead tuples, no growth).
    await sql(
      `INSERT INTO "check_passes" ("check_id", "basis", "newest", "scan_id")
       SELECT t.*, $${n + 1} FROM ${unnestFrom(PASS_COLUMNS)}
       ON CONFLICT ("check_id") DO UPDATE SET "basis" = EXCLUDED."basis", "newest" = EXCLUDED."newest", "scan_id" = EXCLUDED."scan_id"
       WHERE ("check_passes"."basis", "check_passes"."newest") IS DISTINCT FROM (EXCLUDED."basis", EXCLUDED."newest")`,
      [...toColumnArrays(kept, n), scan.scan_id],
    );
  }
  if (forgotten.length > 0) await sql(`DELETE FROM "check_passes" WHERE "check_id" = ANY($1::bigint[])`, [forgotten]);
}

/** Every check with a basis, with its open result; in pages, inside the caller's snapshot. */
export async function readPasses(sql: Sql): Promise<Map<string, PreviousCheck>> {
  const passes = new Map<string, PreviousCheck>();
  const intern = createIntern();
  let after = (-(2n ** 63n)).toString();
  for (;;) {
    const { rows } = await sql<ObservationRow & { check_id: string; basis: string; newest: string | null }>(
      `SELECT p."check_id"::text AS "check_id", c."key", p."basis", p."newest"::text AS "newest", r."outcome",
              r."rows_affected"::text AS "rows_affected", r."rows_total"::text AS "rows_total", r."message", r."sample_sql"
         FROM "check_passes" p
         JOIN "checks" c ON c."id" = p."check_id"
         JOIN "check_results" r ON r."check_id" = p."check_id" AND r."valid_to" IS NULL
        WHERE p."check_id" > $1::bigint
        ORDER BY p."check_id" LIMIT ${PAGE}`,
      [after],
    );
    for (const row of rows) {
      passes.set(row.key, {
        basis: row.basis,
        newest: row.newest === null ? null : Number(row.newest),
        observation: toObservation(row, intern),
      });
    }
    if (rows.length < PAGE) return passes;
    after = rows.at(-1)!.check_id;
    await yieldToLoop();
  }
}
