// completeScan's one transaction: results, current statuses, status-change history, scan row.
import type { Prisma } from "../generated/prisma/client.js";
import { countResults, statusData, testResultData, toScanRecord } from "./mapping.js";
import { StoreError } from "./store-error.js";
import type { FinishedScan, ScanRecord } from "./store.js";

/**
 * Serialises completions across replicas (and across the pool), so two scans finishing at once
 * cannot both open a status period for the same metric. Transaction-scoped: released on commit.
 */
const COMPLETE_LOCK_KEY = 72707370;

export async function completeScanIn(tx: Prisma.TransactionClient, scan: FinishedScan): Promise<ScanRecord> {
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${COMPLETE_LOCK_KEY})`);
  const existing = await tx.scan.findUnique({ where: { id: scan.scan_id } });
  if (!existing) throw new StoreError(`scan ${scan.scan_id} not found`);
  // `aborted` is accepted: another replica starting up marks every running scan aborted, even
  // one still alive elsewhere. Its results are real, so they are kept when it does finish.
  if (existing.status !== "running" && existing.status !== "aborted") {
    throw new StoreError(`scan ${scan.scan_id} is already ${existing.status}`);
  }
  const finishedAt = scan.finished_at;

  if (scan.results.length > 0) {
    await tx.testResult.createMany({ data: scan.results.map((result) => testResultData(scan.scan_id, result)) });
  }

  const metrics = scan.statuses.map((s) => s.metric_name);
  const previous = new Map((await tx.metricStatus.findMany({ where: { metric: { in: metrics } } })).map((row) => [row.metric, row]));
  for (const status of scan.statuses) {
    const metric = status.metric_name;
    const before = previous.get(metric);
    // A scan that finished before the stored status was checked (clock skew between replicas,
    // or a slow scan overtaken by a faster one) must not roll the status back.
    if (before && before.checkedAt > finishedAt) continue;
    const changed = !before || before.status !== status.status;
    const since = changed ? finishedAt : before.since;
    const data = statusData(status, scan.scan_id, finishedAt, since);
    await tx.metricStatus.upsert({ where: { metric }, create: { metric, ...data }, update: data });
    if (changed) {
      await tx.statusChange.updateMany({ where: { metric, to: null }, data: { to: finishedAt } });
      await tx.statusChange.create({ data: { metric, status: status.status, from: finishedAt } });
    }
  }

  const counts = countResults(scan.results);
  const row = await tx.scan.update({
    where: { id: scan.scan_id },
    data: {
      status: "succeeded",
      finishedAt,
      error: null,
      testsTotal: counts.total,
      testsPassing: counts.passing,
      testsFailing: counts.failing,
      testsWarning: counts.warning,
    },
  });
  return toScanRecord(row);
}
