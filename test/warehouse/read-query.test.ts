// The guard that keeps Warehouse.query() to one SELECT (pure, no engine needed).
import { describe, expect, it } from "vitest";
import { readQueryText, ReadQueryError, safeQueryId } from "../../src/warehouse/read-query.js";
import { cleanClickHouseMessage, toWarehouseError } from "../../src/warehouse/warehouse-error.js";

describe("readQueryText", () => {
  it.each([
    ["SELECT 1", "SELECT 1"],
    ["  select 1 ;; \n", "  select 1"],
    ["WITH 1 AS x SELECT x", "WITH 1 AS x SELECT x"],
    ["(SELECT 1) UNION ALL (SELECT 2)", "(SELECT 1) UNION ALL (SELECT 2)"],
    [
      "/* c */ -- d\nSELECT 'a;b', `c;d`, \"e;f\", 'it\\'s', 'x''y' -- tail ; DROP",
      "/* c */ -- d\nSELECT 'a;b', `c;d`, \"e;f\", 'it\\'s', 'x''y'",
    ],
  ])("accepts %j", (sql, statement) => {
    expect(readQueryText(sql)).toBe(statement);
  });

  it.each([
    ["", /empty/],
    ["-- only a comment", /empty/],
    ["INSERT INTO t VALUES (1)", /SELECT statements only/],
    ["DROP TABLE t", /SELECT statements only/],
    ["SELECT 1; DROP TABLE t", /single statement/],
    ["SELECT 1 /* open", /unterminated \/\*/],
    ["SELECT 'open", /unterminated string/],
    ["SELECT `open", /unterminated quoted identifier/],
    ["SELECT 1 /* /* */ */", /nested/],
    ["SELECT 1 # ; DROP TABLE t", /character #/],
    ["SELECT $$ ' $$; DROP TABLE t; SELECT '", /character \$/],
  ])("rejects %j", (sql, message) => {
    expect(() => readQueryText(sql)).toThrow(ReadQueryError);
    expect(() => readQueryText(sql)).toThrow(message);
  });

  it("makes query ids safe for comments and settings", () => {
    expect(safeQueryId("scan-1/*x*/'")).toBe("scan-1__x___");
    expect(safeQueryId("")).toBe("query");
  });
});

describe("ClickHouse error messages", () => {
  it("strips the 18.16 and 26.7 wrappings", () => {
    expect(
      cleanClickHouseMessage("Code: 47, e.displayText() = DB::Exception: Unknown identifier: nope, e.what() = DB::Exception\n"),
    ).toEqual({
      code: 47,
      text: "Unknown identifier: nope",
    });
    expect(
      cleanClickHouseMessage(
        "Code: 159. DB::Exception: Timeout exceeded: elapsed 1001.7 ms, maximum: 1000 ms. (TIMEOUT_EXCEEDED) (version 26.7.2.1)",
      ),
    ).toEqual({
      code: 159,
      text: "Timeout exceeded: elapsed 1001.7 ms, maximum: 1000 ms. (TIMEOUT_EXCEEDED)",
    });
  });

  it("classifies and redacts", () => {
    const error = toWarehouseError(
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1 pw=hunter2"), { code: "ECONNREFUSED" }),
      "ctx",
      ["hunter2"],
    );
    expect(error.kind).toBe("connection");
    expect(error.message).toBe("ctx: connect ECONNREFUSED 127.0.0.1:1 pw=[redacted]");
    expect(toWarehouseError(new Error("Code: 159. DB::Exception: Timeout exceeded"), "ctx").kind).toBe("timeout");
    expect(error.detail).toBe("connect ECONNREFUSED 127.0.0.1:1 pw=[redacted]");
  });

  it("keeps ClickHouse's words without the query's context or 26.x's plan step in `detail`", () => {
    const raw =
      "Code: 349. DB::Exception: Cannot convert NULL value to non-Nullable type: while executing 'FUNCTION CAST(__table1.x :: 1) -> CAST(x, 'Date') Date : 2'. (CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN) (version 26.7.2.1)";
    const error = toWarehouseError(new Error(raw), "w: query s-q1 failed");
    expect(error).toMatchObject({ kind: "query", clickhouseCode: 349 });
    expect(error.message).toContain(
      "w: query s-q1 failed: ClickHouse error 349: Cannot convert NULL value to non-Nullable type: while executing",
    );
    expect(error.detail).toBe(
      "ClickHouse error 349: Cannot convert NULL value to non-Nullable type (CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN)",
    );
    const old = toWarehouseError(
      new Error("Code: 349, e.displayText() = DB::Exception: Cannot convert NULL value to non-Nullable type, e.what() = DB::Exception"),
      "ctx",
    );
    expect(old.detail).toBe("ClickHouse error 349: Cannot convert NULL value to non-Nullable type");
  });
});
