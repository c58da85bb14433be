// The built-in migrator: Prisma's bookkeeping, idempotence, refusals, rollback, concurrency.
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultMigrationsDir, findPackageRoot } from "../../src/store/package-root.js";
import { createStore } from "../../src/store/prisma-store.js";
import { type TestDatabase, storeTargets } from "./databases.js";

const INIT = "20261122000000_init";
/** Every migration the project ships, in the order they apply. */
const SHIPPED = (await readdir(defaultMigrationsDir(), { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

interface MigrationRow {
  id: string;
  checksum: string;
  migration_name: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}

describe.each(storeTargets)("migrations on $name", (target) => {
  let db: TestDatabase;
  let dir: string;

  beforeEach(async () => {
    db = await target.fresh();
    // A private copy, so tests can add and edit migrations.
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-migrations-"));
    await cp(defaultMigrationsDir(), dir, { recursive: true });
  });
  afterEach(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const open = () => createStore({ ...db.options, migrationsDir: dir });
  const rows = () => db.query<MigrationRow>(`SELECT * FROM "_prisma_migrations" ORDER BY migration_name`);

  it("records migrations the way prisma migrate deploy does, once", async () => {
    await (await open()).close();
    await (await open()).close();
    const recorded = await rows();
    expect(recorded.map((r) => r.migration_name)).toEqual(SHIPPED);
    for (const [index, name] of SHIPPED.entries()) {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      expect(recorded[index]).toMatchObject({
        migration_name: name,
        checksum: createHash("sha256").update(sql).digest("hex"),
        rolled_back_at: null,
        logs: null,
        applied_steps_count: 1,
      });
    }
    expect(recorded[0]?.finished_at).toBeInstanceOf(Date);
    expect(recorded[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("applies a new migration in order, and rolls back one that fails", async () => {
    await (await open()).close();
    await mkdir(path.join(dir, "20270101000000_broken"));
    await writeFile(path.join(dir, "20270101000000_broken", "migration.sql"), `CREATE TABLE "extra" (id INT);\nSELECT 1/0;\n`);
    await expect(open()).rejects.toThrow(/migration 20270101000000_broken failed and was rolled back: division by zero/);
    expect((await rows()).map((r) => r.migration_name)).toEqual(SHIPPED);
    expect(await db.query(`SELECT to_regclass('extra') AS t`)).toEqual([{ t: null }]);

    await writeFile(path.join(dir, "20270101000000_broken", "migration.sql"), `CREATE TABLE "extra" (id INT);\n`);
    await (await open()).close();
    expect((await rows()).map((r) => r.migration_name)).toEqual([...SHIPPED, "20270101000000_broken"]);
  });

  it("refuses an applied migration whose file changed, but accepts other line endings", async () => {
    await (await open()).close();
    const file = path.join(dir, INIT, "migration.sql");
    const original = await readFile(file, "utf8");
    await writeFile(file, original.replace(/\n/g, "\r\n"));
    await (await open()).close();
    await writeFile(file, `${original}\n-- edited\n`);
    await expect(open()).rejects.toThrow(new RegExp(`migration ${INIT} was modified after it was applied`));
  });

  it("refuses to run over a failed migration recorded by prisma migrate deploy", async () => {
    await (await open()).close();
    await db.query(`UPDATE "_prisma_migrations" SET finished_at = NULL, logs = 'boom'`);
    await expect(open()).rejects.toThrow(/failed earlier and is not resolved/);
  });

  // PostgreSQL only, not skipped on PGlite: PGlite is one process per data directory (embedded
  // mode runs one replica), so several replicas on one PGlite store do not exist.
  if (target.name === "postgres") {
    it("lets several replicas start at once", async () => {
      const stores = await Promise.all(Array.from({ length: 4 }, () => open()));
      await Promise.all(stores.map((s) => s.close()));
      expect(await rows()).toHaveLength(SHIPPED.length);
    });
  }
});

describe("package root", () => {
  it("is the folder with package.json and prisma/migrations", () => {
    const root = findPackageRoot();
    expect(defaultMigrationsDir()).toBe(path.join(root, "prisma", "migrations"));
    expect(path.basename(path.dirname(defaultMigrationsDir()))).toBe("prisma");
  });
});
