// Replicas on one PostgreSQL hear each other's writes (store/change-feed.ts): a completed scan, a
// new catalogue version and a feedback are notified from their own transaction, so on commit only;
// the listener reconnects when its connection is cut; a scan whose owner's session is gone is
// aborted by any replica, one whose owner is connected is left alone. Two stores on one database
// stand for two replicas. PGlite: nothing to listen to.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changePayload, MAX_PAYLOAD_BYTES, parseChange, type StoreChange } from "../../src/store/change-feed.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { ChangeFeed, Store } from "../../src/store/store.js";
import { eventually } from "../helpers/daemon-process.js";
import { finished, observation, status, test as inferred } from "./fixtures.js";
import { targets, type TestDatabase } from "./databases.js";

const postgres = targets.find((t) => t.name === "postgres");
const pglite = targets.find((t) => t.name === "pglite")!;

describe.skipIf(!postgres && !process.env.CI)("store change feed on PostgreSQL", () => {
  let db: TestDatabase;
  let writer: Store;
  let reader: Store;
  let feed: ChangeFeed;
  const heard: (StoreChange & { own?: boolean })[] = [];
  const connections: boolean[] = [];
  const tests = [inferred("orders_total", "amount_not_null")];

  beforeAll(async () => {
    db = await postgres!.fresh();
    writer = await createStore(db.options);
    reader = await createStore(db.options);
    feed = reader.watch({ onChange: (change) => heard.push(change), onConnection: (up) => connections.push(up) })!;
    await eventually("the listener", async () => feed.connected(), 10_000);
  });

  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await db?.drop();
  });

  it("hears a completed scan and its catalogue version from the other store, and its own writes as its own", async () => {
    await writer.createScan({ scan_id: "scan-1", trigger: "manual", started_at: new Date() });
    await writer.completeScan(
      finished("scan-1", tests, { [tests[0]!.key]: observation() }, [status("orders_total", "healthy")], "version-1"),
    );
    await eventually("the scan's notification", async () => heard.some((c) => c.kind === "scan" && c.id === "scan-1"), 5_000);
    expect(heard.find((c) => c.kind === "catalog")).toMatchObject({ id: "version-1", own: false });
    expect(heard.find((c) => c.kind === "scan")).toMatchObject({ id: "scan-1", own: false });

    await reader.createScan({ scan_id: "scan-2", trigger: "manual", started_at: new Date() });
    await reader.completeScan(
      finished("scan-2", tests, { [tests[0]!.key]: observation(1) }, [status("orders_total", "degraded")], "version-1"),
    );
    await eventually("its own scan's notification", async () => heard.some((c) => c.id === "scan-2"), 5_000);
    expect(heard.find((c) => c.id === "scan-2")).toMatchObject({ kind: "scan", own: true });
    // The version was already there: no second catalogue notification.
    expect(heard.filter((c) => c.kind === "catalog")).toHaveLength(1);
  });

  it("hears a feedback; nothing from a transaction that rolled back", async () => {
    const start = new Date(Date.UTC(2026, 0, 5));
    await writer.addAnomalyFeedback({ check_key: tests[0]!.key, start, metric: "orders_total", rule: "volume_anomaly", measure: "rows" });
    await eventually("the feedback's notification", async () => heard.some((c) => c.kind === "feedback"), 5_000);
    expect(heard.find((c) => c.kind === "feedback")).toMatchObject({
      id: `${tests[0]!.key}@${start.toISOString()}`,
      check_key: tests[0]!.key,
      own: false,
    });

    const client = new pg.Client({ connectionString: db.options.databaseUrl! });
    await client.connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT pg_notify('metric_reliability_changes', '{"kind":"scan","id":"rolled-back"}')`);
      await client.query("ROLLBACK");
      await client.query(`SELECT pg_notify('metric_reliability_changes', '{"kind":"scan","id":"after"}')`);
    } finally {
      await client.end();
    }
    await eventually("the committed notification", async () => heard.some((c) => c.id === "after"), 5_000);
    expect(heard.some((c) => c.id === "rolled-back")).toBe(false);
  });

  it("hears a series scored again after a feedback, naming its check", async () => {
    const key = tests[0]!.key;
    const verdicts = {
      check_key: key,
      start: 0,
      step: 86_400_000,
      value: Float64Array.from([1]),
      expected: Float32Array.from([1]),
      lower: Float32Array.from([0]),
      upper: Float32Array.from([2]),
      flags: Uint8Array.from([0]),
      excluded: null,
    };
    await writer.putAnomalyVerdicts([verdicts]);
    await eventually("the verdicts' notification", async () => heard.some((c) => c.kind === "verdicts"), 5_000);
    expect(heard.find((c) => c.kind === "verdicts")).toMatchObject({ check_key: key, own: false });
  });

  it("reconnects when its connection is cut, and says so", async () => {
    const before = connections.length;
    await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'metric-reliability listener' AND datname = current_database()`,
    );
    await eventually("the listener to notice", async () => connections.slice(before).includes(false), 5_000);
    await eventually("the listener to come back", async () => feed.connected(), 10_000);
    expect(connections.slice(before)).toEqual([false, true]);
    await writer.createScan({ scan_id: "scan-3", trigger: "manual", started_at: new Date() });
    await writer.completeScan(
      finished("scan-3", tests, { [tests[0]!.key]: observation() }, [status("orders_total", "healthy")], "version-1"),
    );
    await eventually("a notification after the reconnect", async () => heard.some((c) => c.id === "scan-3"), 5_000);
  });

  it("aborts the running scans of an owner whose session is gone, not those of a connected one", async () => {
    const other = await createStore(db.options);
    const otherFeed = other.watch({ onChange: () => undefined })!;
    await eventually("the other listener", async () => otherFeed.connected(), 10_000);
    await other.createScan({ scan_id: "doomed", trigger: "manual", started_at: new Date() });
    await reader.createScan({ scan_id: "alive", trigger: "manual", started_at: new Date() });
    // A scan whose owner had no listener (or an older version): left to the heartbeat rule.
    await writer.createScan({ scan_id: "no-session", trigger: "manual", started_at: new Date() });
    const keys = await db.query<{ id: string; owner_session_key: number | null }>(
      `SELECT id, owner_session_key FROM scans WHERE id IN ('doomed', 'alive', 'no-session') ORDER BY id`,
    );
    expect(keys.map((k) => [k.id, k.owner_session_key !== null])).toEqual([
      ["alive", true],
      ["doomed", true],
      ["no-session", false],
    ]);
    expect(await writer.abortScansOfLostSessions()).toBe(0);
    await other.close(); // its process "dies": the session and its lock go
    await eventually("the lock to go", async () => (await writer.abortScansOfLostSessions()) === 1, 5_000);
    const states = await db.query<{ id: string; status: string }>(
      `SELECT id, status FROM scans WHERE id IN ('doomed', 'alive', 'no-session') ORDER BY id`,
    );
    expect(states).toEqual([
      { id: "alive", status: "running" },
      { id: "doomed", status: "aborted" },
      { id: "no-session", status: "running" },
    ]);
  });
});

describe("store change feed elsewhere", () => {
  it("the embedded store has nothing to watch and no sessions to look at", async () => {
    const db = await pglite.fresh();
    const store = await createStore(db.options);
    try {
      expect(store.watch({ onChange: () => undefined })).toBeNull();
      await store.createScan({ scan_id: "s", trigger: "manual", started_at: new Date() });
      expect(await store.abortScansOfLostSessions()).toBe(0);
    } finally {
      await store.close();
      await db.drop();
    }
  });

  it("parses only the payloads it knows", () => {
    expect(parseChange('{"kind":"scan","id":"a","origin":"o"}')).toEqual({ kind: "scan", id: "a", origin: "o" });
    expect(parseChange('{"kind":"feedback","id":"k@t"}')).toEqual({ kind: "feedback", id: "k@t" });
    expect(parseChange('{"kind":"feedback","id":"k@t","check_key":"k"}')).toEqual({ kind: "feedback", id: "k@t", check_key: "k" });
    expect(parseChange('{"kind":"verdicts","id":"k","check_key":"k","origin":"o"}')).toEqual({
      kind: "verdicts",
      id: "k",
      check_key: "k",
      origin: "o",
    });
    expect(parseChange('{"kind":"feedback","id":"k@t","check_key":7}')).toEqual({ kind: "feedback", id: "k@t" });
    expect(parseChange('{"kind":"other","id":"a"}')).toBeNull();
    expect(parseChange('{"kind":"scan"}')).toBeNull();
    expect(parseChange("not json")).toBeNull();
    expect(parseChange(undefined)).toBeNull();
  });
});

describe("change payloads", () => {
  it("fit PostgreSQL's limit: a check key too long to send is left out (the replicas then forget every series)", () => {
    const change: StoreChange = { kind: "feedback", id: "k@t", check_key: "k", origin: "o" };
    expect(parseChange(changePayload(change))).toEqual(change);
    const long = "x".repeat(MAX_PAYLOAD_BYTES);
    const payload = changePayload({ kind: "feedback", id: `${long}@t`, check_key: long, origin: "o" });
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(parseChange(payload)).toEqual({ kind: "feedback", id: "x".repeat(500), origin: "o" });
  });
});
