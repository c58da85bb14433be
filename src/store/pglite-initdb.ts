// `initdb` for the embedded store, as a process of its own: creating a database runs a second
// PostgreSQL and the initdb program beside it (about 700 MB resident for a few seconds), memory
// the daemon would otherwise keep as its high-water mark. Writes a new database into argv[2].
import { PGlite } from "@electric-sql/pglite";

const target = process.argv[2];
if (!target) {
  process.stderr.write("usage: pglite-initdb DIR\n");
  process.exit(2);
}
try {
  const db = await PGlite.create(target);
  await db.close();
} catch (error) {
  process.stderr.write(`initdb of ${target} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
