// The checks both engines run before a query leaves the process, so they reject the same inputs
// with the same errors.
import { readQueryText, safeQueryId } from "./read-query.js";
import type { QueryOptions } from "./warehouse.js";
import { WarehouseError } from "./warehouse-error.js";

export interface PreparedQuery {
  queryId: string;
  /** "<warehouse>: query <id> failed", the prefix of every error about this query */
  context: string;
  /** the single SELECT, without trailing semicolons */
  statement: string;
}

export function prepareQuery(where: string, sql: string, opts: QueryOptions): PreparedQuery {
  const queryId = safeQueryId(opts.queryId);
  const context = `${where}: query ${queryId} failed`;
  let statement: string;
  try {
    statement = readQueryText(sql);
  } catch (error) {
    const detail = (error as Error).message;
    throw new WarehouseError(`${context}: ${detail}`, "rejected", null, { cause: error, detail });
  }
  if (opts.signal?.aborted) throw new WarehouseError(`${context}: cancelled before it started`, "aborted");
  return { queryId, context, statement };
}
