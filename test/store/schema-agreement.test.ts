// Proves prisma/migrations and prisma/schema.prisma agree: after migrating, the database holds
// exactly the tables, columns, types, nullability, defaults, keys and indexes (with Prisma's
// names) that the schema describes, so `prisma migrate dev` would see no drift.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPackageRoot } from "../../src/store/package-root.js";
import { createStore } from "../../src/store/prisma-store.js";
import { type TestDatabase, storeTargets } from "./databases.js";
import { expectedTables, type ExpectedTable } from "./prisma-schema.js";

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: "YES" | "NO";
  datetime_precision: number | null;
  column_default: string | null;
}

async function actualTables(db: TestDatabase): Promise<ExpectedTable[]> {
  const columns = await db.query<ColumnRow>(
    `SELECT table_name, column_name, data_type, is_nullable, datetime_precision, column_default
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
      ORDER BY table_name, ordinal_position`,
  );
  const indexes = await db.query<{ table: string; name: string; columns: string; primary: boolean }>(
    `SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary,
            (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'`,
  );
  const fks = await db.query<{ table: string; name: string; column: string; references: string; on_delete: string }>(
    `SELECT tc.table_name AS table, tc.constraint_name AS name, kcu.column_name AS column,
            ccu.table_name || '(' || ccu.column_name || ')' AS references, rc.delete_rule AS on_delete
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
       JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
       JOIN information_schema.referential_constraints rc ON rc.constraint_name = tc.constraint_name AND rc.constraint_schema = tc.table_schema
      WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public'`,
  );
  const names = [...new Set(columns.map((c) => c.table_name))];
  return names.map((table) => {
    const primary = indexes.find((i) => i.table === table && i.primary);
    return {
      name: table,
      columns: columns
        .filter((c) => c.table_name === table)
        .map((c) => ({
          name: c.column_name,
          type: c.data_type,
          nullable: c.is_nullable === "YES",
          ...(c.data_type.startsWith("timestamp") ? { precision: c.datetime_precision ?? -1 } : {}),
          default:
            c.column_default === null
              ? null
              : c.column_default.startsWith("nextval(")
                ? "autoincrement"
                : c.column_default === "CURRENT_TIMESTAMP"
                  ? "now"
                  : (c.column_default as "now"),
        })),
      primaryKey: { name: primary?.name ?? "(none)", columns: primary?.columns.split(",") ?? [] },
      indexes: indexes.filter((i) => i.table === table && !i.primary).map((i) => ({ name: i.name, columns: i.columns.split(",") })),
      foreignKeys: fks
        .filter((f) => f.table === table)
        .map((f) => ({ name: f.name, column: f.column, references: f.references, onDelete: f.on_delete })),
    };
  });
}

const sortTables = (tables: ExpectedTable[]) =>
  tables
    .map((t) => ({
      ...t,
      columns: [...t.columns].sort((a, b) => a.name.localeCompare(b.name)),
      indexes: [...t.indexes].sort((a, b) => a.name.localeCompare(b.name)),
      foreignKeys: [...t.foreignKeys].sort((a, b) => a.name.localeCompare(b.name)),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));

describe.each(storeTargets)("migrations agree with schema.prisma on $name", (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await target.fresh();
    await (await createStore(db.options)).close();
  });
  afterAll(() => db.drop());

  it("has exactly the tables, columns, keys and indexes the schema describes", async () => {
    const schema = await readFile(path.join(findPackageRoot(), "prisma", "schema.prisma"), "utf8");
    const expected = expectedTables(schema);
    expect(expected.length).toBeGreaterThan(0);
    expect(sortTables(await actualTables(db))).toEqual(sortTables(expected));
  });
});

describe("the schema reader", () => {
  it("refuses constructs it does not understand", () => {
    expect(() => expectedTables(`model A {\n  id String @id @unique\n}\n`)).toThrow(/unsupported attribute @unique/);
    expect(() => expectedTables(`enum E {\n  X\n}\nmodel A {\n  id String @id\n}\n`)).toThrow(/enum/);
    expect(() => expectedTables(`model A {\n  id Json @id\n}\n`)).toThrow(/unsupported type Json/);
  });
});
