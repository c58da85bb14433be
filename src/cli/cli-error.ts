// Exit codes of the CLI. `scan` is a circuit breaker: 0 every selected metric is safe to use,
// 1 one is not, 2 the question could not be answered (usage, unknown metric, unreachable server).

export const EXIT_OK = 0;
/** scan: a selected metric is not safe_to_use; validate: the catalogue has errors */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** An error the CLI reports as one line on stderr, with its exit code (2 unless said otherwise). */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}
