// vitest reporter: with CI set, any skipped or todo test fails the run (a skip that only ever
// happens in CI hides exactly the tests CI exists to run).
import type { Reporter, TestModule } from "vitest/node";

export default class CiNoSkipsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (!process.env.CI) return;
    const skipped: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "skipped") skipped.push(`${module.moduleId.replace(`${process.cwd()}/`, "")} > ${test.fullName}`);
      }
    }
    if (skipped.length === 0) return;
    process.stderr.write(`\nCI is set, but ${skipped.length} test(s) were skipped:\n${skipped.map((s) => `  - ${s}`).join("\n")}\n`);
    process.exitCode = 1;
  }
}
