// `migrate` applies the store's migrations and exits; a second run has nothing left to do.
import { describe, expect, it } from "vitest";
import { readMigrations } from "../../src/store/migrate.js";
import { defaultMigrationsDir } from "../../src/store/package-root.js";
import { storeTargets } from "../store/databases.js";
import { runCli } from "./run-cli.js";

const migrations = await readMigrations(defaultMigrationsDir());

describe.each(storeTargets)("metric-reliability migrate on $name", (target) => {
  it("applies every migration once, then none", async () => {
    const db = await target.fresh();
    try {
      const env: Record<string, string> = { DATA_DIR: db.options.dataDir };
      if (db.options.databaseUrl) env.DATABASE_URL = db.options.databaseUrl;
      const first = await runCli(["migrate"], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain(
        `${migrations.length} migration${migrations.length === 1 ? "" : "s"} applied (${migrations.map((m) => m.name).join(", ")})`,
      );
      const second = await runCli(["migrate"], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain(`0 migrations applied, ${migrations.length} already applied`);
      const rows = await db.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`);
      expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
    } finally {
      await db.drop();
    }
  });
});

describe("metric-reliability migrate", () => {
  it("exits 2 with one line when the database cannot be reached", async () => {
    const run = await runCli(["migrate"], { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nowhere", DATA_DIR: "/nonexistent" });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^metric-reliability: migration failed: /);
  });
});
