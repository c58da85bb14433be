// The generated OpenAPI document: valid OpenAPI 3.1, strict enough to catch an undocumented
// field, and held equal (by type) to the views the services return. Live responses are
// validated against it in test/e2e/openapi.e2e.test.ts.
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { buildOpenApiDocument, packageVersion } from "../../src/api/openapi.js";
import type * as r from "../../src/api/response-schemas.js";
import type { MetricIR } from "../../src/compile/ir.js";
import type * as v from "../../src/services/views.js";

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
/** true when A is assignable to B */
type Extends<A, B> = [A] extends [B] ? true : false;
const doc = buildOpenApiDocument();

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(doc) as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.info.version).toBe(packageVersion());
  });

  it("documents the list endpoints' pagination and filters", () => {
    const names = (path: string) => (doc.paths?.[path]?.get?.parameters ?? []).map((p) => ("name" in p ? p.name : null));
    // Every read also takes X-Min-Scan (api/scan-pinning.ts).
    expect(names("/v1/validation/tests")).toEqual(["limit", "cursor", "metric", "rule", "table", "X-Min-Scan"]);
    expect(names("/v1/reliability/status")).toEqual(["limit", "cursor", "metric", "status", "table", "X-Min-Scan"]);
    expect(names("/v1/compiler/ir")).toEqual(["limit", "cursor", "metric", "table", "X-Min-Scan"]);
    expect(names("/v1/compiler/status")).toEqual(names("/v1/compiler/ir"));
    const status = doc.paths?.["/v1/reliability/status/{name}"]?.get;
    expect(Object.keys((status?.responses?.["200"] as { headers?: object }).headers ?? {})).toEqual(["X-Scan-Id"]);
  });

  it("rejects a body with an undocumented field or a value outside an enum", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "openapi.json");
    const validate = ajv.getSchema("openapi.json#/components/schemas/StatusEntry")!;
    const entry = { metric_name: "m", status: "healthy", safe_to_use: true, checked_at: "2026-11-25T00:00:00.000Z", since: null };
    expect(validate(entry)).toBe(true);
    expect(validate({ ...entry, extra: 1 })).toBe(false);
    expect(validate({ ...entry, status: "fine" })).toBe(false);
    expect(validate({ ...entry, checked_at: "yesterday" })).toBe(false);
  });

  it("describes exactly the types the services return", () => {
    // Compile-time checks (tsc): a field added to a view without its schema, or the reverse, fails the typecheck.
    expectTypeOf<v.InferredTestView>().toEqualTypeOf<z.output<typeof r.inferredTestSchema>>();
    expectTypeOf<v.TestResultView>().toEqualTypeOf<z.output<typeof r.testResultSchema>>();
    expectTypeOf<v.TestRunView>().toEqualTypeOf<z.output<typeof r.testRunSchema>>();
    expectTypeOf<v.StatusEntryView>().toEqualTypeOf<z.output<typeof r.statusEntrySchema>>();
    expectTypeOf<v.MetricStatusView>().toEqualTypeOf<z.output<typeof r.metricStatusSchema>>();
    expectTypeOf<v.AffectedByView>().toEqualTypeOf<z.output<typeof r.affectedBySchema>>();
    expectTypeOf<v.ScanView>().toEqualTypeOf<z.output<typeof r.scanSchema>>();
    expectTypeOf<v.ScanTriggerView>().toEqualTypeOf<z.output<typeof r.scanTriggerSchema>>();
    expectTypeOf<v.AnomaliesView>().toEqualTypeOf<z.output<typeof r.anomaliesSchema>>();
    expectTypeOf<v.AnomalyFeedbackView>().toEqualTypeOf<z.output<typeof r.anomalyFeedbackSchema>>();
    // Lists: next_cursor is optional in both (present when the request had query parameters).
    expectTypeOf<Extends<v.TestListing, z.output<typeof r.testListingSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<Extends<v.StatusListingView, z.output<typeof r.statusListingSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<Extends<v.CompilerStatusView, z.output<typeof r.compilerStatusSchema>>>().toEqualTypeOf<true>();
    // The IR: the measures' optional `non_negative` is an extra the compiler adds (compile/measure-hints.ts).
    expectTypeOf<Extends<MetricIR, z.output<typeof r.metricIRSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<keyof MetricIR>().toEqualTypeOf<keyof z.output<typeof r.metricIRSchema>>();
  });
});
