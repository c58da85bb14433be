// Which tables a piece of ClickHouse SQL reads: the names after FROM, JOIN and `IN <table>`,
// found by a small tokenizer (strings, quoted identifiers and comments are skipped whole).
// Used to decide whether a check's result can be kept: every table it reads must be unchanged.
// It errs on the safe side: anything it cannot name for sure (a table function, an unqualified
// name that depends on the session's database, `EXTRACT(x FROM col)`) makes the SQL "opaque",
// and opaque SQL is always read again.

interface Token {
  kind: "word" | "quoted" | "string" | "punct" | "other";
  text: string;
}

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Index just past the closing quote (backslash escapes and doubled quotes), or the end. */
function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "\\") i += 2;
    else if (c === quote && sql[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i += 1;
  }
  return sql.length;
}

function unquote(text: string): string {
  const quote = text[0]!;
  return text
    .slice(1, -1)
    .replace(/\\(.)/g, "$1")
    .split(quote + quote)
    .join(quote);
}

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (c === "'" || c === "`" || c === '"') {
      const end = skipQuoted(sql, i, c);
      const text = sql.slice(i, end);
      tokens.push(c === "'" ? { kind: "string", text } : { kind: "quoted", text: unquote(text) });
      i = end;
    } else if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i;
      const word = WORD.exec(sql)![0];
      tokens.push({ kind: "word", text: word });
      i += word.length;
    } else if (c === "." || c === "(" || c === ")" || c === ",") {
      tokens.push({ kind: "punct", text: c });
      i += 1;
    } else {
      // numbers, operators: one token per character is enough to keep names apart
      tokens.push({ kind: "other", text: c });
      i += 1;
    }
  }
  return tokens;
}

export interface SqlTables {
  /** "database.table", sorted */
  tables: string[];
  /** why the SQL reads something that cannot be named for sure; null when every read is named */
  opaque: string | null;
}

const isName = (token: Token | undefined): token is Token => token !== undefined && (token.kind === "word" || token.kind === "quoted");
const isWord = (token: Token | undefined, word: string): boolean => token?.kind === "word" && token.text.toUpperCase() === word;

/** Tables read by `sql` (FROM, JOIN, `IN db.table`), or why they cannot all be named. */
/** Text without these words reads no table: most checks, which skip the tokenizer. */
const MAY_READ = /\b(from|join|in)\b/i;

export function tablesInSql(sql: string): SqlTables {
  if (!MAY_READ.test(sql)) return { tables: [], opaque: null };
  const tokens = tokenize(sql);
  const tables = new Set<string>();
  let opaque: string | null = null;
  for (let i = 0; i < tokens.length && opaque === null; i += 1) {
    const token = tokens[i]!;
    const from = isWord(token, "FROM");
    const join = isWord(token, "JOIN") && !isWord(tokens[i - 1], "ARRAY");
    const inTable = isWord(token, "IN") && isName(tokens[i + 1]);
    if (!from && !join && !inTable) continue;
    const first = tokens[i + 1];
    if (first?.kind === "punct" && first.text === "(") continue; // a subquery or a value list: its own FROMs are found in turn
    if (!isName(first)) {
      opaque = `cannot read the table after ${token.text.toUpperCase()}`;
      break;
    }
    const qualified = tokens[i + 2]?.text === "." && isName(tokens[i + 3]);
    const next = tokens[i + (qualified ? 4 : 2)];
    if (next?.kind === "punct" && next.text === "(") opaque = `reads a table function ${first.text}(...)`;
    else if (!qualified) opaque = `reads ${first.text} without a database name`;
    else tables.add(`${first.text}.${tokens[i + 3]!.text}`);
  }
  return { tables: [...tables].sort(), opaque };
}
