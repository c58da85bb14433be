import { describe, expect, it } from "vitest";
import { portableBooleans } from "../../src/sql/boolean-literals.js";

describe("portableBooleans", () => {
  it("renders true/false literals as 1/0, in any case", () => {
    expect(portableBooleans("is_food_order = true")).toBe("is_food_order = 1");
    expect(portableBooleans("a = TRUE AND b != False")).toBe("a = 1 AND b != 0");
    expect(portableBooleans("if(x > 0, true, false)")).toBe("if(x > 0, 1, 0)");
    expect(portableBooleans("x->true")).toBe("x->1");
    expect(portableBooleans("(true)")).toBe("(1)");
  });

  it("keeps strings, quoted identifiers, comments and look-alike names", () => {
    expect(portableBooleans("label = 'true' OR label = 'it''s false' OR note = 'a\\'true'")).toBe(
      "label = 'true' OR label = 'it''s false' OR note = 'a\\'true'",
    );
    expect(portableBooleans('`true` = true AND "false" = false')).toBe('`true` = 1 AND "false" = 0');
    expect(portableBooleans("t.true = 1 AND true_flag AND is_true AND false1 AND truex")).toBe(
      "t.true = 1 AND true_flag AND is_true AND false1 AND truex",
    );
    expect(portableBooleans("x = true -- true\n/* false */ AND y")).toBe("x = 1 -- true\n/* false */ AND y");
    expect(portableBooleans("true (1)")).toBe("true (1)"); // a call, not a literal
    expect(portableBooleans("1e5 = 1e5 AND 0x1Ftrue")).toBe("1e5 = 1e5 AND 0x1Ftrue");
  });

  it("leaves SQL without the words as it is, even an unterminated quote", () => {
    expect(portableBooleans("status = 'completed'")).toBe("status = 'completed'");
    expect(portableBooleans("x = 'true")).toBe("x = 'true");
  });
});
