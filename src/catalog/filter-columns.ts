// Which columns a metric's filter reads, found by a small lexer. A heuristic, not a parser:
// it is what lets a renamed filter column be reported as schema drift instead of as a raw
// ClickHouse error on every test of the table.

// Words that are SQL syntax, not columns, in the predicates a filter realistically holds.
const KEYWORDS = new Set([
  "and",
  "or",
  "not",
  "in",
  "is",
  "null",
  "like",
  "ilike",
  "between",
  "true",
  "false",
  "case",
  "when",
  "then",
  "else",
  "end",
  "as",
  "interval",
  "second",
  "minute",
  "hour",
  "day",
  "week",
  "month",
  "quarter",
  "year",
  "global",
  "any",
  "all",
  "exists",
  "select",
  "from",
  "where",
  "distinct",
  "nan",
  "inf",
]);

interface Token {
  kind: "word" | "quoted" | "other";
  text: string;
}

function tokens(filter: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < filter.length) {
    const char = filter[i]!;
    if (char === "'" || char === '"' || char === "`") {
      let j = i + 1;
      let text = "";
      while (j < filter.length && filter[j] !== char) {
        if (filter[j] === "\\") j += 1;
        text += filter[j] ?? "";
        j += 1;
      }
      // A string literal is a value; a quoted name ("col" or `col`) is an identifier.
      out.push(char === "'" ? { kind: "other", text: "'" } : { kind: "quoted", text });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(filter.slice(i))![0];
      out.push({ kind: "word", text: word });
      i += word.length;
    } else if (/[0-9]/.test(char)) {
      // Numbers, including 1e5 and 0x1F, are values.
      i += /^[0-9][0-9A-Za-z_.]*/.exec(filter.slice(i))![0].length;
      out.push({ kind: "other", text: "0" });
    } else if (/\s/.test(char)) {
      i += 1;
    } else {
      const two = filter.slice(i, i + 2);
      const text = two === "->" ? two : char;
      out.push({ kind: "other", text });
      i += text.length;
    }
  }
  return out;
}

/** Drops `(SELECT ...)` subqueries: their names belong to other tables. */
function withoutSubqueries(list: Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < list.length; i += 1) {
    const next = list[i + 1];
    if (list[i]!.text === "(" && next?.kind === "word" && next.text.toLowerCase() === "select") {
      let depth = 0;
      for (; i < list.length; i += 1) {
        if (list[i]!.text === "(") depth += 1;
        else if (list[i]!.text === ")" && --depth === 0) break;
      }
      out.push({ kind: "other", text: "()" });
    } else out.push(list[i]!);
  }
  return out;
}

/** Column names the filter reads, in order of first use. */
export function filterColumns(filter: string): string[] {
  const list = withoutSubqueries(tokens(filter));
  const columns: string[] = [];
  list.forEach((token, index) => {
    if (token.kind === "other") return;
    const before = list[index - 1]?.text;
    const after = list[index + 1]?.text;
    if (after === "(" || after === "." || after === "->" || before === "." || before === "->") return; // call, qualified name, lambda
    if (token.kind === "word" && (KEYWORDS.has(token.text.toLowerCase()) || before?.toLowerCase() === "as")) return; // syntax, CAST type
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(token.text)) return;
    if (!columns.includes(token.text)) columns.push(token.text);
  });
  return columns;
}
