import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Suites share one ClickHouse server and one PostgreSQL server; each uses its own
    // database names, so files may run in parallel, but keep it modest on 2 cores.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
