import { describe, expect, it } from "vitest";
import { bearerToken, constantTimeEqual, createAuthenticator, requestAuthorizer, type Authenticator } from "../../src/api/auth.js";

const RW = "rw-key-0123456789abcdef";
const RO = "ro-key-0123456789abcdef";
const auth = createAuthenticator({ keys: [RW], readonlyKeys: [RO] });
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return "ok";
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe("auth", () => {
  it("rejects a missing or malformed header with unauthorized", () => {
    expect(codeOf(() => auth(undefined, "read"))).toBe("unauthorized");
    expect(codeOf(() => auth("", "read"))).toBe("unauthorized");
    expect(codeOf(() => auth(`Basic ${RW}`, "read"))).toBe("unauthorized");
    expect(codeOf(() => auth("Bearer", "read"))).toBe("unauthorized");
  });

  it("rejects a wrong key with unauthorized", () => {
    expect(codeOf(() => auth("Bearer nope", "read"))).toBe("unauthorized");
    expect(codeOf(() => auth(`Bearer ${RW}x`, "read"))).toBe("unauthorized");
    expect(codeOf(() => auth(`Bearer ${"x".repeat(10_000)}`, "read"))).toBe("unauthorized");
  });

  it("lets a read-only key read but not write", () => {
    expect(auth(`Bearer ${RO}`, "read")).toBe("read");
    expect(codeOf(() => auth(`Bearer ${RO}`, "write"))).toBe("forbidden");
  });

  it("lets a read-write key do both; scheme is case-insensitive", () => {
    expect(auth(`Bearer ${RW}`, "read")).toBe("write");
    expect(auth(`bearer ${RW}`, "write")).toBe("write");
  });

  it("rejects everything when no key is configured", () => {
    expect(codeOf(() => createAuthenticator({ keys: [], readonlyKeys: [] })(`Bearer ${RW}`, "read"))).toBe("unauthorized");
  });

  it("compares in constant time over fixed-length digests", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    // different lengths must not throw (timingSafeEqual would on raw buffers)
    expect(constantTimeEqual("short", "a much longer string")).toBe(false);
    expect(bearerToken("Bearer  tok ")).toBe("tok");
  });
});

describe("requestAuthorizer", () => {
  it("asks the authenticator once a request and checks each need against that answer", () => {
    let asked = 0;
    const counting: Authenticator = (header, need) => {
      asked += 1;
      return auth(header, need);
    };
    const authorize = requestAuthorizer(counting);
    const reader = { headers: { authorization: `Bearer ${RO}` } };
    expect(authorize(reader, "read")).toBe("read");
    expect(codeOf(() => authorize(reader, "write"))).toBe("forbidden");
    expect(asked).toBe(1);
    const writer = { headers: { authorization: `Bearer ${RW}` } };
    expect(authorize(writer, "write")).toBe("write");
    const stranger = { headers: { authorization: "Bearer nope" } };
    expect(codeOf(() => authorize(stranger, "read"))).toBe("unauthorized");
    expect(codeOf(() => authorize(stranger, "read"))).toBe("unauthorized");
    expect(asked).toBe(3);
  });
});
