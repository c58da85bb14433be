// In embedded mode with no key configured, the daemon generates one key, keeps it in
// DATA_DIR/api-key and prints it once, when it is created. It is never logged afterwards.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

export async function embeddedApiKey(dataDir: string): Promise<{ key: string; file: string; created: boolean }> {
  const file = path.join(dataDir, "api-key");
  try {
    const key = (await readFile(file, "utf8")).trim();
    if (key.length >= 16) return { key, file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = `mr_${randomBytes(24).toString("base64url")}`;
  await writeFile(file, key + "\n", { mode: 0o600 });
  return { key, file, created: true };
}
