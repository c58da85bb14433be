/** The default branch of an exhaustive switch: a case left unhandled fails to compile here. */
export function assertUnreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
