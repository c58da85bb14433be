import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { toHttpError } from "../../src/api/rest/http-errors.js";
import { appErrorOf, formatTRPCError, toTRPCError } from "../../src/api/trpc/trpc-errors.js";
import { AppError, ERROR_CODES, type ErrorCode } from "../../src/errors/app-error.js";

describe("AppError -> HTTP", () => {
  it("uses the code table status and the { error: { code, message } } body", () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const mapped = toHttpError(new AppError(code, `msg ${code}`));
      expect(mapped.status).toBe(ERROR_CODES[code].http);
      expect(mapped.body).toEqual({ error: { code, message: `msg ${code}` } });
    }
  });

  it("adds WWW-Authenticate on 401 and the AppError's own headers", () => {
    expect(toHttpError(new AppError("unauthorized", "x")).headers).toEqual({ "WWW-Authenticate": "Bearer" });
    expect(toHttpError(new AppError("rate_limited", "slow down", { headers: { "Retry-After": "30" } })).headers).toEqual({
      "Retry-After": "30",
    });
  });

  it("hides unknown errors behind internal, without their text", () => {
    const mapped = toHttpError(new Error("password=hunter2 at /srv/app.js:1"));
    expect(mapped).toMatchObject({ status: 500, body: { error: { code: "internal", message: "internal error" } } });
    expect(JSON.stringify(mapped)).not.toContain("hunter2");
  });

  it("maps body-parser and URL decoding errors to bad_request", () => {
    const parse = Object.assign(new SyntaxError("Unexpected token"), { status: 400, type: "entity.parse.failed" });
    expect(toHttpError(parse)).toMatchObject({ status: 400, body: { error: { code: "bad_request", message: "malformed JSON body" } } });
    const big = Object.assign(new Error("too large"), { status: 413, type: "entity.too.large" });
    expect(toHttpError(big).body.error.code).toBe("bad_request");
  });
});

describe("AppError -> tRPC", () => {
  it("maps every code through the code table and keeps the AppError as cause", () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const appError = new AppError(code, "m");
      const error = toTRPCError(appError);
      expect(error.code).toBe(ERROR_CODES[code].trpc);
      expect(error.cause).toBe(appError);
    }
  });

  it("unwraps service errors and schema failures; hides unknown errors", () => {
    expect(appErrorOf(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new AppError("not_found", "metric x") })).code).toBe(
      "not_found",
    );
    const zodLike = { issues: [{ path: ["name"], message: "expected a metric name" }] };
    expect(appErrorOf(new TRPCError({ code: "BAD_REQUEST", cause: zodLike }))).toMatchObject({
      code: "bad_request",
      message: 'invalid parameter "name": expected a metric name',
    });
    expect(appErrorOf(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new Error("secret") }))).toMatchObject({
      code: "internal",
      message: "internal error",
    });
    expect(appErrorOf(new TRPCError({ code: "NOT_FOUND", message: 'No procedure found on path "x"' })).code).toBe("not_found");
  });

  it("formats the shape with data.appCode and without a stack", () => {
    const error = toTRPCError(new AppError("forbidden", "read-only key"));
    const shape = {
      message: "x",
      code: -32003,
      data: { code: "FORBIDDEN", httpStatus: 403, path: "reliability.scan", stack: "Error: at ..." },
    };
    expect(formatTRPCError({ shape, error })).toEqual({
      message: "read-only key",
      code: -32003,
      data: { code: "FORBIDDEN", httpStatus: 403, path: "reliability.scan", appCode: "forbidden" },
    });
  });
});

describe("tRPC transport errors", () => {
  it("keeps tRPC's own 4xx errors as bad_request with their message", () => {
    const error = new TRPCError({ code: "METHOD_NOT_SUPPORTED", message: "Unsupported GET-request to mutation procedure" });
    expect(appErrorOf(error)).toMatchObject({ code: "bad_request", message: "Unsupported GET-request to mutation procedure" });
  });
});
