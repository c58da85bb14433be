// Reads one `semantic_model` into a SemanticModel, naming every problem by its field: where
// its rows live (which needs METRICFLOW_DATABASE), then the schema's.
import { z } from "zod";
import { nameOf } from "../mapping.js";
import { tableOf } from "./relation.js";
import { parseMf } from "./schema-common.js";
import { mfRelation, mfSemanticModel } from "./schema-model.js";
import type { SemanticModel } from "./types.js";

export type ModelResult = { model: SemanticModel } | { problems: string[] };

export function readSemanticModel(value: unknown, file: string, database: string): ModelResult {
  // Where the rows live is checked on its own, so that its problem is named beside the others.
  const relation = mfRelation.safeParse(value);
  const located = relation.success ? tableOf(relation.data, database) : null;
  const parsed = parseMf(mfSemanticModel, value);
  const problems = [...(located !== null && "problem" in located ? [located.problem] : []), ...(parsed.ok ? [] : parsed.problems)];
  if (!parsed.ok || located === null || "problem" in located) return { problems };
  return { model: { ...parsed.value, file, table: located.table } };
}

const measureList = z.looseObject({ measures: z.array(z.unknown()) });

/** Names of the measures a semantic model declares, read as far as it goes (for one that failed to read). */
export function declaredMeasureNames(value: unknown): string[] {
  const parsed = measureList.safeParse(value);
  if (!parsed.success) return [];
  return parsed.data.measures.map(nameOf).filter((name): name is string => name !== null);
}
