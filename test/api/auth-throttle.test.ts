import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createAuthThrottle } from "../../src/api/limits.js";

describe("createAuthThrottle", () => {
  it("asks nothing of a client that sent no wrong key, and refuses one that sent too many until the window ends", async () => {
    const throttle = createAuthThrottle({ authFailureLimit: 3, authFailureWindowSeconds: 1 });
    expect(throttle.check("10.0.0.1")).toBeUndefined();

    for (let i = 0; i < 2; i++) await throttle.failed("10.0.0.1");
    // Under the limit: asked, and let through.
    await expect(throttle.check("10.0.0.1")).resolves.toBeUndefined();
    await throttle.failed("10.0.0.1");
    await expect(throttle.check("10.0.0.1")).rejects.toMatchObject({ code: "rate_limited", headers: { "Retry-After": "1" } });
    // Another client is not refused, and not even asked about.
    expect(throttle.check("10.0.0.2")).toBeUndefined();

    await sleep(1_100);
    expect(throttle.check("10.0.0.1")).toBeUndefined();
  });

  it("refuses nobody when the limit is off", async () => {
    const throttle = createAuthThrottle({ authFailureLimit: 0, authFailureWindowSeconds: 60 });
    for (let i = 0; i < 20; i++) await throttle.failed("10.0.0.1");
    expect(throttle.check("10.0.0.1")).toBeUndefined();
  });
});
