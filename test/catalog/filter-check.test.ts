import { describe, expect, it } from "vitest";
import { filterProblem } from "../../src/catalog/filter-check.js";

describe("filterProblem", () => {
  it("accepts ordinary predicates, including quotes and parentheses inside literals", () => {
    for (const ok of [
      "status = 'completed'",
      "a IN ('x', 'y') AND (b > 1 OR c < 2)",
      "note = 'it''s'",
      "note = 'a\\'b'",
      "`weird col` = 1",
      "label = '('",
    ]) {
      expect(filterProblem(ok), ok).toBeNull();
    }
  });

  it("rejects statement separators, comments and unbalanced input", () => {
    expect(filterProblem("  ")).toBe("must not be empty");
    expect(filterProblem("a = 1 # x")).toContain("'#'");
    expect(filterProblem('name = "x')).toBe('has an unterminated " quote');
    expect(filterProblem("a = 1)")).toBe("has a ')' without a matching '('");
  });

  it("rejects ClickHouse heredocs, which would swallow the rest of the query", () => {
    for (const heredoc of ["note = $$x$$", "note = $$) OR (1 = 1", "note = $tag$x$tag$", "a = 1 AND b = $$", "note = '$$'"]) {
      expect(filterProblem(heredoc), heredoc).toBe("must not contain a ClickHouse heredoc ($$ or $tag$)");
    }
    for (const ok of ["price_usd > 5", "note = 'costs $5 or $6'"]) expect(filterProblem(ok), ok).toBeNull();
  });
});
