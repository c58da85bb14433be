import { describe, expect, it } from "vitest";
import { filterProblem } from "../../src/catalog/filter-check.js";

describe("filterProblem", () => {
  it("accepts ordinary predicates, including quotes and parentheses inside literals", () => {
    for (const ok of ["status = 'completed'", "a IN ('x', 'y') AND (b > 1 OR c < 2)", "note = 'it''s'", "note = 'a\\'b'", "`weird col` = 1", "label = '('"]) {
      expect(filterProblem(ok), ok).toBeNull();
    }
  });

  it("rejects statement separators, comments and unbalanced input", () => {
    expect(filterProblem("  ")).toBe("must not be empty");
    expect(filterProblem("a = 1 # x")).toContain("'#'");
    expect(filterProblem('name = "x')).toBe('has an unterminated " quote');
    expect(filterProblem("a = 1)")).toBe("has a ')' without a matching '('");
  });
});
