// What every command receives: the config parsed once, a logger on stderr, and the streams.
import { pino } from "pino";
import { ConfigError, loadConfig, type Config } from "../config/config.js";
import { createLogger, type Logger } from "../logger.js";
import { CliError } from "./cli-error.js";

export interface CliContext {
  config: Config;
  logger: Logger;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export function context(globals: { metricsDir?: string }): CliContext {
  let config: Config;
  try {
    config = loadConfig(globals.metricsDir ? { ...process.env, METRICS_DIR: globals.metricsDir } : process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
  // One-shot commands log errors only (unless LOG_LEVEL says otherwise), to stderr: their own
  // one-line message says what failed, and retries along the way are not the user's business.
  const level = process.env.LOG_LEVEL ? config.LOG_LEVEL : "error";
  return { config, logger: createLogger(level, pino.destination(2)), stdout: process.stdout, stderr: process.stderr };
}
