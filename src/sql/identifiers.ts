// Identifiers come from metric definitions, never from HTTP requests. They are still
// validated and quoted, so a definition cannot smuggle SQL into a generated query.
// Backtick quoting works on ClickHouse 18.16 and current releases alike.

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

export function assertIdentifier(name: string, what = "identifier"): string {
  if (!isIdentifier(name)) throw new Error(`invalid ${what} ${JSON.stringify(name)}: expected ${IDENTIFIER.source}`);
  return name;
}

/** `name` -> `name` in backticks (after validation). */
export function quoteIdentifier(name: string): string {
  return "`" + assertIdentifier(name) + "`";
}

/** "database.table" -> `database`.`table` */
export function quoteTable(qualified: string): string {
  const parts = qualified.split(".");
  if (parts.length !== 2) throw new Error(`invalid table ${JSON.stringify(qualified)}: expected database.table`);
  return parts.map((p) => quoteIdentifier(p)).join(".");
}

export function isQualifiedTable(qualified: string): boolean {
  const parts = qualified.split(".");
  return parts.length === 2 && parts.every(isIdentifier);
}

/** A ClickHouse string literal: backslash and quote escaped. */
export function quoteString(value: string): string {
  return "'" + value.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'";
}
