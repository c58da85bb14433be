// Guards Warehouse.query(): exactly one SELECT statement, nothing smuggled behind it.
// Why: on chdb, read-only mode is a SETTINGS clause appended to the text, and chdb runs
// every statement of a multi-statement string. "DROP ...; SELECT 1" or a statement that ends
// inside an open comment/string would escape that clause. The server enforces readonly per
// request anyway; the same guard runs there so both engines reject the same inputs.

export class ReadQueryError extends Error {
  override name = "ReadQueryError";
}

const FIRST_WORD = /^(select|with)\b/i;

/**
 * Returns the statement without trailing semicolons/whitespace. Throws ReadQueryError for
 * a second statement, an unterminated string/identifier/comment, or a non-SELECT statement.
 */
export function readQueryText(sql: string): string {
  let i = 0;
  let firstCode = -1; // index of the first character outside comments/whitespace
  let end = 0; // end of the statement (exclusive), before any trailing `;`
  let afterSemicolon = false;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "-" && next === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl === -1 ? n : nl + 1;
      continue;
    }
    if (c === "/" && next === "*") {
      const close = sql.indexOf("*/", i + 2);
      if (close === -1) throw new ReadQueryError("unterminated /* comment in query");
      // ClickHouse nests block comments; refusing nesting keeps our view and its view equal.
      if (sql.slice(i + 2, close).includes("/*")) throw new ReadQueryError("nested /* comments are not allowed in query");
      i = close + 2;
      continue;
    }
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    if (c === ";") {
      afterSemicolon = true;
      i += 1;
      continue;
    }
    if (afterSemicolon) throw new ReadQueryError("query must be a single statement (found more after ';')");
    if (firstCode === -1) firstCode = i;
    // `#` comments and `$$` heredoc strings (newer ClickHouse) would hide text from this scan.
    if (c === "#" || c === "$") throw new ReadQueryError(`character ${c} is not allowed outside quotes in query`);
    if (c === "'" || c === "`" || c === '"') {
      i = skipQuoted(sql, i, c);
    } else {
      i += 1;
    }
    end = i;
  }
  if (firstCode === -1) throw new ReadQueryError("query is empty");
  const statement = sql.slice(0, end);
  if (!FIRST_WORD.test(sql.slice(firstCode)) && !sql.slice(firstCode).startsWith("(")) {
    throw new ReadQueryError("query() runs read-only SELECT statements only");
  }
  return statement;
}

/** Index just past the closing quote; backslash escapes and doubled quotes both count. */
function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  throw new ReadQueryError(`unterminated ${quote === "'" ? "string literal" : "quoted identifier"} in query`);
}

/** A query id safe inside a SQL comment or a setting value: [A-Za-z0-9_.:-] only. */
export function safeQueryId(queryId: string): string {
  const cleaned = queryId.replace(/[^A-Za-z0-9_.:-]/g, "_").slice(0, 200);
  return cleaned.length > 0 ? cleaned : "query";
}
