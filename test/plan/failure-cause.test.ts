import { describe, expect, it } from "vitest";
import { failureCause } from "../../src/plan/failure-cause.js";

const COLUMNS = {
  ordered_at: "Nullable(DateTime)",
  shipped_at: "Nullable(DateTime)",
  created: "DateTime",
  day_text: "String",
  amount_text: "Nullable(String)",
  note: "Nullable(String)",
};

describe("failureCause", () => {
  it("counts the NULLs a cast to a non-Nullable type throws on (code 349)", () => {
    expect(failureCause("isNull((cast(ordered_at as DATE))) OR toString((cast(ordered_at as DATE))) = ''", 349, COLUMNS)).toEqual({
      count: "countIf(isNull(`ordered_at`))",
      cause: "NULL ordered_at",
    });
    expect(failureCause("CAST(`ordered_at`, 'Date') < CAST(shipped_at AS Date)", 349, COLUMNS)).toEqual({
      count: "countIf(isNull(`ordered_at`) OR isNull(`shipped_at`))",
      cause: "NULL ordered_at or shipped_at",
    });
    // a cast to Nullable and toDate() pass NULL through: only the one Nullable column read is left
    expect(failureCause("cast(ordered_at AS Nullable(Date)) < toDate(shipped_at) + x", 349, COLUMNS)).toBeNull();
    expect(failureCause("someFunction(note) = 1", 349, COLUMNS)).toEqual({ count: "countIf(isNull(`note`))", cause: "NULL note" });
  });

  it("counts the strings a conversion cannot read (codes 6, 38, 41, 72), with -OrNull functions 18.16 has", () => {
    expect(failureCause("toDate(day_text) > today()", 38, COLUMNS)).toEqual({
      count: "countIf((isNotNull(`day_text`) AND isNull(toDateOrNull(`day_text`))))",
      cause: "a day_text that is not a valid Date",
    });
    expect(failureCause("cast(amount_text AS int32) > 0", 6, COLUMNS)).toEqual({
      count: "countIf((isNotNull(`amount_text`) AND isNull(toInt32OrNull(`amount_text`))))",
      cause: "a amount_text that is not a valid Int32",
    });
    // a DateTime column is not parsed; an unknown column is not counted
    expect(failureCause("toDate(created) > toDate(missing)", 38, COLUMNS)).toBeNull();
  });

  it("says nothing for other errors", () => {
    expect(failureCause("cast(ordered_at as DATE)", 47, COLUMNS)).toBeNull();
    expect(failureCause("cast(ordered_at as DATE)", null, COLUMNS)).toBeNull();
  });
});
