// `migrate`: what the daemon does at start, alone (for a migration Job or a release step).
import { openDatabase } from "../../store/open-database.js";
import { CliError, EXIT_OK } from "../cli-error.js";
import type { CliContext } from "../context.js";

export async function migrateCommand(ctx: CliContext): Promise<number> {
  const { config } = ctx;
  let database;
  try {
    database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, logger: ctx.logger });
  } catch (error) {
    throw new CliError(`migration failed: ${(error as Error).message}`);
  }
  await database.close();
  const { applied, alreadyApplied } = database.migrations;
  const target = config.DATABASE_URL ? "PostgreSQL" : `embedded store in ${config.DATA_DIR}`;
  ctx.stdout.write(
    `${target}: ${applied.length} migration${applied.length === 1 ? "" : "s"} applied${applied.length ? ` (${applied.join(", ")})` : ""}, ${alreadyApplied} already applied\n`,
  );
  return EXIT_OK;
}
