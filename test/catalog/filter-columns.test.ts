import { describe, expect, it } from "vitest";
import { filterColumns } from "../../src/catalog/filter-columns.js";

describe("filterColumns", () => {
  it.each([
    ["status = 'completed'", ["status"]],
    ["status IN ('a', 'b') AND amount > 0", ["status", "amount"]],
    ["NOT is_test AND country IS NOT NULL", ["is_test", "country"]],
    ["created_at >= now() - INTERVAL 30 DAY", ["created_at"]],
    ["toDate(created_at) BETWEEN '2026-01-01' AND today()", ["created_at"]],
    ["`order status` = 'x' OR \"Amount\" < 1e3", ["Amount"]], // names that are no identifier are never in a definition
    ["CAST(amount AS Float64) > 0.5", ["amount"]],
    ["arrayExists(x -> x > 1, tags)", ["tags"]],
    ["note = 'it''s status = 1' AND flag", ["note", "flag"]],
    ["t.1 = 0x1F", []],
    ["customer_id NOT IN (SELECT id FROM shop.test_accounts WHERE (kind = 'qa')) AND paid", ["customer_id", "paid"]],
  ])("%s reads %j", (filter, expected) => {
    expect(filterColumns(filter)).toEqual(expected);
  });
});
