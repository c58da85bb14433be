// Accumulates one table query's result columns while tracking its exact byte length,
// so the planner can split only when a query would pass max_query_size.
import type { QueryOutput } from "./types.js";
import type { ProbeExpression } from "./probe-sql.js";

const HEAD = "SELECT count() AS total";
const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

export class QueryDraft {
  /** expression -> alias: identical expressions (e.g. now()) are computed once per query */
  private readonly aliases = new Map<string, string>();
  private readonly columns: string[] = [];
  readonly outputs: QueryOutput[] = [];
  private length: number;

  constructor(private readonly tail: string) {
    this.length = bytes(HEAD) + bytes(tail);
  }

  get isEmpty(): boolean {
    return this.outputs.length === 0;
  }

  /** Byte length of the SQL once `expressions` were added. */
  lengthWith(expressions: ProbeExpression[]): number {
    let length = this.length;
    let next = this.aliases.size;
    // Only this call's few new expressions are collected: copying the query's aliases per test
    // made planning a wide table quadratic.
    const added = new Set<string>();
    for (const { expression } of expressions) {
      if (expression === null || this.aliases.has(expression) || added.has(expression)) continue;
      added.add(expression);
      next += 1;
      length += bytes(`, ${expression} AS c${next}`);
    }
    return length;
  }

  add(testKey: string, expressions: ProbeExpression[]): void {
    for (const { part, expression } of expressions) {
      if (expression === null) {
        this.outputs.push({ alias: "total", test_key: testKey, part });
        continue;
      }
      let alias = this.aliases.get(expression);
      if (alias === undefined) {
        alias = `c${this.aliases.size + 1}`;
        this.aliases.set(expression, alias);
        const column = `${expression} AS ${alias}`;
        this.columns.push(column);
        this.length += bytes(`, ${column}`);
      }
      this.outputs.push({ alias, test_key: testKey, part });
    }
  }

  sql(): string {
    return HEAD + this.columns.map((column) => `, ${column}`).join("") + this.tail;
  }
}
