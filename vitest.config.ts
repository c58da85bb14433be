import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // With CI set: missing servers fail the run (globalSetup), and so does any skipped test (reporter).
    globalSetup: ["test/ci-requirements.ts", "test/pglite-template-setup.ts"],
    reporters: ["default", "./test/ci-no-skips-reporter.ts"],
    // Suites share one ClickHouse server and one PostgreSQL server; each uses its own
    // database names, so files may run in parallel, but keep it modest on 2 cores.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
