import type { ValueRef } from "./types.js";

/** A column as written, or an SQL expression in parentheses. */
export const valueSql = (ref: ValueRef): string => (ref.column !== null ? ref.column : `(${ref.expr})`);
