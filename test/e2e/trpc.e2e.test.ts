// Every procedure of the AppRouter (src/api/trpc/router.ts) through @trpc/client against the real
// daemon: same input, output and errors as its REST twin.
import { TRPCClientError } from "@trpc/client";
import { expect, it } from "vitest";
import type { AppRouter } from "../../src/api/trpc/router.js";
import { RO_KEY, RW_KEY, describeCombinations, useDaemon } from "./daemon-harness.js";
import { EXPECTED_RUN_SUMMARY, EXPECTED_SUMMARY, METRICS, expectIso, expectUuid, maskAges } from "./expected.js";

const TABLES = ["shop.orders", "shop.products", "shop.customers", "inventory", "shop.nothing"];

async function trpcError(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const e = error as TRPCClientError<AppRouter>;
  return { message: e.message, code: e.data?.code, appCode: e.data?.appCode, httpStatus: e.data?.httpStatus };
}

describeCombinations("tRPC", (combination) => {
  const session = useDaemon(combination);

  it("every query procedure answers what its REST twin answers (batched, read-write and read-only keys)", async () => {
    const { d } = session();
    const scanId = (await d.get("/v1/reliability/status/order_count")).scan_id;
    expectUuid(scanId);
    for (const key of [RW_KEY, RO_KEY]) {
      const t = d.trpc(key, "batch");
      const [tests, ir, status, listing, scan] = await Promise.all([
        t.validation.tests.query(),
        t.compiler.ir.query(),
        t.compiler.status.query(),
        t.reliability.status.query(),
        t.reliability.scanById.query({ id: scanId }),
      ]);
      expect(tests).toEqual(await d.get("/v1/validation/tests"));
      expect(ir).toEqual(await d.get("/v1/compiler/ir"));
      expect(status).toEqual(await d.get("/v1/compiler/status"));
      expect(listing).toEqual(await d.get("/v1/reliability/status"));
      expect(listing.summary).toEqual(EXPECTED_SUMMARY);
      expect(scan).toEqual(await d.get(`/v1/reliability/scans/${scanId}`));
      expect(scan).toMatchObject({ trigger: "startup", status: "succeeded", summary: EXPECTED_RUN_SUMMARY });

      const byName = await Promise.all(METRICS.map((name) => t.compiler.irByName.query({ name })));
      const statusByName = await Promise.all(METRICS.map((name) => t.reliability.statusByName.query({ name })));
      const affected = await Promise.all(TABLES.map((table) => t.reliability.affectedBy.query({ table })));
      for (const [i, name] of METRICS.entries()) {
        expect(byName[i]).toEqual(await d.get(`/v1/compiler/ir/${name}`));
        expect(statusByName[i]).toEqual(await d.get(`/v1/reliability/status/${name}`));
      }
      for (const [i, table] of TABLES.entries()) expect(affected[i]).toEqual(await d.get(`/v1/reliability/affected-by/${table}`));
      expect(affected[4]).toEqual({ table: "shop.nothing", affected_metrics: [], count: 0 });
    }
  });

  it("semanticTests.run answers what POST /v1/semantic-tests/run answers", async () => {
    const { d } = session();
    const viaTrpc = await d.trpc(RW_KEY, "single").semanticTests.run.mutate();
    const viaRest = (await d.request("POST", "/v1/semantic-tests/run", { key: RW_KEY })).body;
    expect(viaTrpc.summary).toEqual(EXPECTED_RUN_SUMMARY);
    expectIso(viaTrpc.ran_at);
    expect(Date.parse(viaRest.ran_at)).toBeGreaterThan(Date.parse(viaTrpc.ran_at));
    expect(maskAges({ ...viaTrpc, ran_at: null })).toEqual(maskAges({ ...viaRest, ran_at: null }));
    // Both runs went through the scan service: reliability was checked by the later one.
    const view = await d.get("/v1/reliability/status/gross_revenue");
    expect(view.checked_at).toBe(viaRest.ran_at);
    expect(await d.get(`/v1/reliability/scans/${view.scan_id}`)).toMatchObject({ trigger: "api_run", finished_at: viaRest.ran_at });
    expect(view.history).toHaveLength(1);
  });

  it("reliability.scan: running, coalesced while running, { wait: true } answers the finished scan", async () => {
    const { d } = session();
    const t = d.trpc(RW_KEY, "single");
    const [a, b, c, waited] = await Promise.all([
      t.reliability.scan.mutate(),
      t.reliability.scan.mutate({}),
      t.reliability.scan.mutate({ wait: false }),
      t.reliability.scan.mutate({ wait: true }),
    ]);
    expect(new Set([a.scan_id, b.scan_id, c.scan_id, waited.scan_id]).size).toBe(1);
    expect([a, b, c, waited].filter((s) => !s.coalesced)).toHaveLength(1);
    for (const s of [a, b, c])
      expect(s).toMatchObject({ status: "running", trigger: "manual", finished_at: null, summary: null, error: null });
    expect(waited).toMatchObject({ status: "succeeded", trigger: "manual", summary: EXPECTED_RUN_SUMMARY, error: null });
    const { coalesced: _coalesced, ...scan } = waited;
    expect(await t.reliability.scanById.query({ id: a.scan_id })).toEqual(scan);
    expect(await d.get(`/v1/reliability/scans/${a.scan_id}`)).toEqual(scan);
    const next = await t.reliability.scan.mutate({ wait: true });
    expect(next).toMatchObject({ status: "succeeded", coalesced: false });
    expect(next.scan_id).not.toBe(a.scan_id);
  });

  it("errors carry the REST error's code and message", async () => {
    const { d } = session();
    const t = d.trpc(RW_KEY, "single");
    const cases: [() => Promise<unknown>, string][] = [
      [() => t.compiler.irByName.query({ name: "no_such_metric" }), "/v1/compiler/ir/no_such_metric"],
      [() => t.reliability.statusByName.query({ name: "no_such_metric" }), "/v1/reliability/status/no_such_metric"],
      [
        () => t.reliability.scanById.query({ id: "00000000-0000-4000-8000-000000000000" }),
        "/v1/reliability/scans/00000000-0000-4000-8000-000000000000",
      ],
    ];
    for (const [call, path] of cases) {
      const rest = await d.request("GET", path, { key: RW_KEY });
      expect(rest.status).toBe(404);
      expect(await trpcError(call())).toEqual({
        message: rest.body.error.message,
        code: "NOT_FOUND",
        appCode: "not_found",
        httpStatus: 404,
      });
    }
    expect((await trpcError(t.compiler.irByName.query({ name: "no_such_metric" }))).message).toBe('metric "no_such_metric" not found');
    const bad = await trpcError(t.reliability.statusByName.query({ name: "../../etc" }));
    const restBad = await d.request("GET", "/v1/reliability/status/..%2F..%2Fetc", { key: RW_KEY });
    expect(bad).toEqual({ message: restBad.body.error.message, code: "BAD_REQUEST", appCode: "bad_request", httpStatus: 400 });
    expect(bad.message).toContain('"name"');
  });

  it("logged no warning or error", () => {
    expect(session().d.logs).toEqual([]);
  });
});
