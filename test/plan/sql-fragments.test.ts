import { describe, expect, it } from "vitest";
import { metricFragments, parseProbe, probeChunks } from "../../src/plan/sql-fragments.js";
import { structured } from "../infer/fixtures.js";

describe("SQL fragments of a metric", () => {
  it("are its filter and its measure and dimension expressions", () => {
    const ir = structured({
      filter: "status = 'x'",
      measures: [{ alias: "net", function: "Sum", column: null, expr: "amount - fee", expr_columns: ["amount", "fee"] }],
      dimensions: [{ name: "big", source_table: null, column: null, expr: "amount > 100", expr_columns: ["amount"] }],
    });
    expect(metricFragments(ir).map((f) => [f.what, f.text])).toEqual([
      ["filter", "status = 'x'"],
      ["measure net expr", "amount - fee"],
      ["dimension big expr", "amount > 100"],
    ]);
    expect(metricFragments(structured({ kind: "derived", table: null, measures: [] }))).toEqual([]);
  });

  it("are probed in one query that reads nothing, chunked under the size limit", () => {
    expect(parseProbe(["a = 1", "b"])).toBe("SELECT 1 FROM system.one WHERE 0 AND ((a = 1) IS NULL) AND ((b) IS NULL)");
    const texts = Array.from({ length: 10 }, (_, i) => `c${i} = '${"x".repeat(100)}'`);
    const chunks = probeChunks(texts, 400);
    expect(chunks.flat()).toEqual(texts);
    for (const chunk of chunks) expect(Buffer.byteLength(parseProbe(chunk))).toBeLessThanOrEqual(400);
    expect(probeChunks(["y".repeat(1000)], 400)).toEqual([["y".repeat(1000)]]); // too long alone: still asked, once
  });
});
