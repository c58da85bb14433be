// ClickHouse 18.16 has no `true`/`false` literals ("Unknown identifier: true"); `1` and `0` work
// on every supported version, also against a 26.x Bool column. Definitions' SQL fragments
// (filters, measure and dimension expressions; MetricFlow's `{{ Dimension('x') }} = true`) are
// rewritten once, at compile. A small lexer keeps string literals, quoted identifiers and
// comments as they are, and so are names that merely look like the words: `t.true`, `true(`.

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /[0-9][0-9A-Za-z_.]*/y;
const LITERALS: Record<string, string> = { true: "1", false: "0" };

/** Index just past a quoted run opened at `start` (backslash escapes; a doubled quote reopens at once). */
function endOfQuoted(sql: string, start: number): number {
  const quote = sql[start];
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === "\\") i += 2;
    else if (sql[i] === quote) return i + 1;
    else i += 1;
  }
  return sql.length;
}

function endOfComment(sql: string, start: number): number {
  if (sql.startsWith("/*", start)) {
    const end = sql.indexOf("*/", start + 2);
    return end === -1 ? sql.length : end + 2;
  }
  const end = sql.indexOf("\n", start);
  return end === -1 ? sql.length : end;
}

const isCommentStart = (sql: string, i: number): boolean => sql.startsWith("--", i) || sql.startsWith("/*", i) || sql[i] === "#";

/** Nearest character before `i` (and from `i` on) that is not white space. */
function previousSignificant(sql: string, i: number): string | undefined {
  let j = i - 1;
  while (j >= 0 && /\s/.test(sql[j]!)) j -= 1;
  return sql[j];
}
function nextSignificant(sql: string, i: number): string | undefined {
  let j = i;
  while (j < sql.length && /\s/.test(sql[j]!)) j += 1;
  return sql[j];
}

/** `sql` with every boolean literal outside strings, quoted names and comments as 1 or 0. */
export function portableBooleans(sql: string): string {
  if (!/true|false/i.test(sql)) return sql;
  let out = "";
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    let end: number;
    if (char === "'" || char === '"' || char === "`") end = endOfQuoted(sql, i);
    else if (isCommentStart(sql, i)) end = endOfComment(sql, i);
    else if (/[0-9]/.test(char)) {
      NUMBER.lastIndex = i;
      end = i + NUMBER.exec(sql)![0].length;
    } else if (/[A-Za-z_]/.test(char)) {
      WORD.lastIndex = i;
      const word = WORD.exec(sql)![0];
      end = i + word.length;
      const literal = LITERALS[word.toLowerCase()];
      // `db.true`, `true.x` and `true(...)` are names, not literals.
      const name = previousSignificant(sql, i) === "." || [".", "("].includes(nextSignificant(sql, end) ?? "");
      if (literal !== undefined && !name) {
        out += literal;
        i = end;
        continue;
      }
    } else end = i + 1;
    out += sql.slice(i, end);
    i = end;
  }
  return out;
}

/** For nullable fragments of a definition. */
export function portableBooleansOrNull(sql: string | null): string | null {
  return sql === null ? null : portableBooleans(sql);
}
