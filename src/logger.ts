import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

/**
 * The one logger of the process; keys and passwords are redacted wherever they appear.
 * The daemon logs to stdout; CLI commands pass stderr, keeping stdout for their output.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: ["req.headers.authorization", "*.password", "*.apiKey", "authorization"], censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
}
