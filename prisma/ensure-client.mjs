// Runs `prisma generate` only when the generated client is missing or older than the schema,
// so `npm start` and `npm test` do not regenerate it (seconds) on every run.
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const mtime = (file) => {
  try {
    return statSync(path.join(root, file)).mtimeMs;
  } catch {
    return -1;
  }
};
const generated = mtime("src/generated/prisma/client.ts");
if (generated < 0 || generated < mtime("prisma/schema.prisma") || generated < mtime("prisma.config.ts")) {
  execFileSync(process.execPath, [path.join(root, "node_modules", "prisma", "build", "index.js"), "generate"], {
    cwd: root,
    stdio: "inherit",
  });
}
