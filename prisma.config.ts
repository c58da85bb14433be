// Prisma CLI configuration (generate, validate, format, migrate deploy).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "prisma/config";

const root = path.dirname(fileURLToPath(import.meta.url));

// @prisma/engines cannot download the native schema engine on the build machines, and without
// one every CLI call fails. A real engine (the Docker `migrate` stage sets the variable) wins.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(root, "prisma", "schema-engine-stub.sh");

export default defineConfig({
  schema: path.join(root, "prisma", "schema.prisma"),
  migrations: { path: path.join(root, "prisma", "migrations") },
  // Not env("DATABASE_URL"): that throws when the variable is unset, e.g. during `docker build`.
  datasource: { url: process.env.DATABASE_URL ?? "" },
});
