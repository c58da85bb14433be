// MeasureIR (shared, src/compile/ir.ts) has no field for a declared `non_negative`, yet
// inference must read it from the IR alone. Until ir.ts gains the field, the compiler
// adds it as an optional extra property (only when declared), and this is its one reader.
import type { MeasureIR } from "./ir.js";

export interface MeasureIRWithHints extends MeasureIR {
  /** declared in the definition: true = must be >= 0, false = may be negative (no heuristic) */
  non_negative?: boolean;
}

export function declaredNonNegative(measure: MeasureIR): boolean | undefined {
  const value = (measure as MeasureIRWithHints).non_negative;
  return typeof value === "boolean" ? value : undefined;
}
