// The store suites' one set-up: a fresh database of the target, a store opened on it with a clock
// the test sets, closed and dropped after each test (or after the suite). Call it inside the
// describe block; the hooks it registers belong to that block.
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { openDatabase, type Database } from "../../src/store/open-database.js";
import { storeOn } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import type { TestDatabase, TestTarget } from "./databases.js";
import { at } from "./fixtures.js";

export interface StoreUnderTest {
  /** the open store (another object after `reopen`) */
  readonly store: Store;
  readonly db: TestDatabase;
  /** the store's clock (`now`): what completeScan takes as finished_at; at(0) to start with */
  clock: Date;
  /** closes the store and opens it again on the same database, as a restart does */
  reopen(): Promise<Store>;
  /** reads the database directly, on the store's own connection (PGlite allows one open instance per directory) */
  inspect<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface WithStoreOptions {
  /** a fresh database for each test (default) or one for the whole describe block */
  per?: "test" | "suite";
  /** "real": the store keeps its own clock and `clock` is not used */
  clock?: "fixed" | "real";
}

export function withStore(target: TestTarget, options: WithStoreOptions = {}): StoreUnderTest {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  let database: Database | undefined;
  const open = async () => {
    database = await openDatabase(fixture.db.options);
    return storeOn(database, options.clock === "real" ? fixture.db.options : { ...fixture.db.options, now: () => fixture.clock });
  };
  const fixture: StoreUnderTest = {
    get store() {
      if (!store) throw new Error("withStore: no store outside a test");
      return store;
    },
    get db() {
      if (!db) throw new Error("withStore: no database outside a test");
      return db;
    },
    clock: at(0),
    async reopen() {
      await store?.close();
      return (store = await open());
    },
    async inspect<T>(text: string, params?: unknown[]) {
      if (!database) throw new Error("withStore: no database outside a test");
      // Closing the store to open the folder again took seconds on PGlite, several times a test.
      return (await database.sessions.transaction({ timeoutMs: 60_000 }, (sql) => sql<T>(text, params))).rows;
    },
  };
  const setUp = async () => {
    fixture.clock = at(0);
    db = await target.fresh();
    store = await open();
  };
  const tearDown = async () => {
    await store?.close();
    await db?.drop();
    store = db = database = undefined;
  };
  if (options.per === "suite") {
    beforeAll(setUp);
    afterAll(tearDown);
  } else {
    beforeEach(setUp);
    afterEach(tearDown);
  }
  return fixture;
}
