import { describe, expect, it } from "vitest";
import { reasonSentence } from "../../src/web/reason.js";

type R = Parameters<typeof reasonSentence>[0]["results"][number];
const r = (name: string, status: R["status"], severity: R["severity"] = "HIGH", message = `${name} message`): R => ({
  name,
  status,
  severity,
  message,
});

describe("the one-sentence reason", () => {
  it("names the first failing HIGH test of an unreliable metric and counts the others", () => {
    expect(
      reasonSentence({
        status: "unreliable",
        results: [
          r("dimension ok", "failing", "MEDIUM"),
          r("amount is never NULL", "failing", "HIGH", "3 of 4,000 rows (0.07%) have NULL amount"),
          r("x", "passing"),
        ],
      }),
    ).toBe("Not safe to use: the HIGH-severity test “amount is never NULL” fails (3 of 4,000 rows (0.07%) have NULL amount).");
    expect(reasonSentence({ status: "unreliable", results: [r("a", "failing"), r("b", "failing"), r("c", "failing")] })).toBe(
      "Not safe to use: the HIGH-severity test “a” fails (a message), and 2 more failing HIGH tests.",
    );
  });

  it("explains a degraded metric by its first failing or warning test", () => {
    expect(
      reasonSentence({
        status: "degraded",
        results: [r("ok", "passing"), r("country is never NULL", "warning", "MEDIUM", "2 of 301 rows")],
      }),
    ).toBe("Safe to use, with care: “country is never NULL” warns (2 of 301 rows).");
    expect(reasonSentence({ status: "degraded", results: [r("w", "warning", "MEDIUM"), r("f", "failing", "MEDIUM")] })).toBe(
      "Safe to use, with care: “f” fails (f message), and 1 more test needing attention.",
    );
  });

  it("says all tests pass for a healthy metric, and why an unknown one is not safe", () => {
    expect(reasonSentence({ status: "healthy", results: [r("a", "passing"), r("b", "passing")] })).toBe("Safe to use: all 2 tests pass.");
    expect(reasonSentence({ status: "healthy", results: [r("a", "passing")] })).toBe("Safe to use: its one test passes.");
    expect(reasonSentence({ status: "unknown", results: [] })).toBe("Not safe to use: no scan has checked this metric yet.");
    expect(reasonSentence({ status: "unknown", results: [r("a", "warning", "HIGH", "not evaluated: filter does not parse")] })).toBe(
      "Not safe to use: none of its data tests could be evaluated (not evaluated: filter does not parse).",
    );
  });
});
