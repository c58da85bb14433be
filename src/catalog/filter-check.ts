// A metric's filter is pasted verbatim into `WHERE (<filter>)`. It comes from a reviewed
// definition, not a request, but a typo must not be able to end the statement, comment
// out the rest of the query or close the surrounding parenthesis.

/** A human-readable problem with the filter, or null when it is acceptable. */
export function filterProblem(filter: string): string | null {
  if (filter.trim() === "") return "must not be empty";
  // Rejected anywhere, even inside a string literal: simpler to reason about than a lexer.
  if (filter.includes(";")) return "must not contain ';'";
  if (filter.includes("--")) return "must not contain a '--' comment";
  if (filter.includes("/*")) return "must not contain a '/*' comment";
  if (filter.includes("#")) return "must not contain '#' (a comment in current ClickHouse)";
  // $$ ... $$ / $tag$ ... $tag$ is a string literal in current ClickHouse (a heredoc): it would
  // swallow the closing parenthesis and whatever SQL follows, up to the next such marker.
  if (/\$[A-Za-z0-9_]*\$/.test(filter)) return "must not contain a ClickHouse heredoc ($$ or $tag$)";
  let quote: string | null = null;
  let depth = 0;
  for (let i = 0; i < filter.length; i += 1) {
    const char = filter[i]!;
    if (quote !== null) {
      if (char === "\\")
        i += 1; // escaped character inside a literal
      else if (char === quote) quote = null; // '' reopens at once, so doubling also works
      continue;
    }
    if (char === "'" || char === '"' || char === "`") quote = char;
    else if (char === "(") depth += 1;
    else if (char === ")") {
      depth -= 1;
      if (depth < 0) return "has a ')' without a matching '('";
    }
  }
  if (quote !== null) return `has an unterminated ${quote} quote`;
  if (depth > 0) return "has a '(' without a matching ')'";
  return null;
}
