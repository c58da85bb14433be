import { describe, expect, it } from "vitest";
import { queryOf } from "../../src/api/request-query.js";

describe("queryOf", () => {
  it("does not read req.query when the URL has no query string", () => {
    const req = {
      url: "/v1/reliability/status/orders",
      get query(): unknown {
        throw new Error("parsed");
      },
    };
    expect(queryOf(req)).toEqual({});
  });

  it("reads req.query when the URL has one", () => {
    expect(queryOf({ url: "/v1/reliability/status?limit=2", query: { limit: "2" } })).toEqual({ limit: "2" });
  });
});
