// Logout on every replica, on the real stores (PGlite, and PostgreSQL when DATABASE_URL is set):
// two replicas' revocation lists over one store, and a session sealed on one refused on the other.
import type { Request, Response } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { CHECK_EVERY_MS, createSessionRevocations } from "../../src/web/session-revocations.js";
import { createSessions, SESSION_COOKIE } from "../../src/web/session.js";
import { type TestDatabase, storeTargets } from "../store/databases.js";

const AUTH = { keys: ["revocation-test-key-0123456789"], readonlyKeys: [] };

/** The least of a request and a response the sessions read and write. */
function exchange(cookie?: string) {
  const set: Record<string, string> = {};
  const req = { headers: cookie ? { cookie } : {}, secure: false } as unknown as Request;
  const res = {
    cookie: (name: string, value: string) => void (set[name] = value),
    clearCookie: (name: string) => void (set[name] = ""),
  } as unknown as Response;
  return { req, res, set };
}

describe.each(storeTargets)("session revocations on the $name store", (target) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await target.fresh();
    store = await createStore(db.options);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("a session logged out on one replica is refused by another within a check", async () => {
    let now = Date.now();
    const clock = () => now;
    const replicaA = createSessions(AUTH, { now: clock, revocations: createSessionRevocations({ store, now: clock }) });
    const replicaB = createSessions(AUTH, { now: clock, revocations: createSessionRevocations({ store, now: clock }) });
    const login = exchange();
    const session = await replicaA.start(login.req, login.res, AUTH.keys[0]!, "write");
    const cookie = `${SESSION_COOKIE}=${login.set[SESSION_COOKIE]}`;
    expect(await replicaB.read(exchange(cookie).req)).toEqual(session);

    const logout = exchange(cookie);
    await replicaA.end(logout.req, logout.res, session);
    expect(logout.set[SESSION_COOKIE]).toBe("");
    expect(await replicaA.read(exchange(cookie).req)).toBeNull();
    // B checked less than CHECK_EVERY_MS ago and still has the session cached; past it, it asks the store.
    now += CHECK_EVERY_MS;
    expect(await replicaB.read(exchange(cookie).req)).toBeNull();
    // A replica started later reads every revocation not yet expired.
    const replicaC = createSessions(AUTH, { now: clock, revocations: createSessionRevocations({ store, now: clock }) });
    expect(await replicaC.read(exchange(cookie).req)).toBeNull();
  });

  it("keeps revocations until the session would have expired, then prunes them", async () => {
    await store.revokeSession("expired-session", new Date(Date.now() - 1000));
    await store.revokeSession("live-session", new Date(Date.now() + 60_000));
    await store.revokeSession("live-session", new Date(Date.now() + 60_000)); // twice: no error, one row
    const ids = (await store.sessionRevocations(0n)).map((r) => r.session_id);
    expect(ids).toContain("live-session");
    expect(ids).not.toContain("expired-session");
    expect(ids.filter((id) => id === "live-session")).toHaveLength(1);
    const last = (await store.sessionRevocations(0n)).at(-1)!.seq;
    expect(await store.sessionRevocations(last)).toEqual([]);
    await store.prune(new Date(0));
    expect((await store.sessionRevocations(0n)).map((r) => r.session_id)).toContain("live-session");
  });
});
