// Entities link semantic models: a foreign (or unique) entity of one model joins the model
// where the same entity is primary or unique. A dimension name such as
// `order_id__customer__segment` is a path of entities from the metric's model, resolved here
// into hops (multi-hop joins). Built once per project: lookups are map reads.
import type { Hop, MfEntity, SemanticModel } from "./types.js";

export interface JoinGraph {
  /** entity name -> models where it is primary or unique (join targets) */
  targets: ReadonlyMap<string, { model: SemanticModel; entity: MfEntity }[]>;
}

export function buildJoinGraph(models: readonly SemanticModel[]): JoinGraph {
  const targets = new Map<string, { model: SemanticModel; entity: MfEntity }[]>();
  for (const model of models) {
    for (const entity of model.entities) {
      if (entity.type !== "primary" && entity.type !== "unique") continue;
      const list = targets.get(entity.name) ?? [];
      list.push({ model, entity });
      targets.set(entity.name, list);
    }
  }
  return { targets };
}

/** The model itself stands for this entity (its primary/unique/natural key, or its primary_entity). */
function identifies(model: SemanticModel, entity: string): boolean {
  return model.primary_entity === entity || model.entities.some((e) => e.name === entity && e.type !== "foreign");
}

export type PathResult = { hops: Hop[]; model: SemanticModel } | { problem: string; unsupported: boolean };

/**
 * Follows `path` (entity names) from `start`; `accept` says whether the final model holds the
 * element asked for, so that of two models keyed by one entity the one that has it is taken.
 */
export function resolvePath(
  graph: JoinGraph,
  start: SemanticModel,
  path: readonly string[],
  accept: (model: SemanticModel) => boolean,
): PathResult {
  let firstProblem: { problem: string; unsupported: boolean } | null = null;
  const walk = (
    current: SemanticModel,
    rest: readonly string[],
    hops: Hop[],
    seen: Set<string>,
  ): { hops: Hop[]; model: SemanticModel } | null => {
    if (rest.length === 0) return accept(current) ? { hops, model: current } : null;
    const [entityName, ...tail] = rest as [string, ...string[]];
    if (identifies(current, entityName)) {
      const stay = walk(current, tail, hops, seen);
      if (stay) return stay;
    }
    const own = current.entities.find((e) => e.name === entityName);
    if (!own) {
      firstProblem ??= { problem: `entity ${entityName} is not an entity of semantic model ${current.name}`, unsupported: false };
      return null;
    }
    for (const target of graph.targets.get(entityName) ?? []) {
      if (target.model === current || seen.has(target.model.name)) continue;
      const hop: Hop = {
        from: current,
        to: target.model,
        entity: entityName,
        from_column: keyOf(own),
        to_column: keyOf(target.entity),
        relationship: own.type === "foreign" ? "many_to_one" : "one_to_one",
      };
      const found = walk(target.model, tail, [...hops, hop], new Set([...seen, target.model.name]));
      if (found) return found;
    }
    return null;
  };
  const found = walk(start, path, [], new Set([start.name]));
  if (found) return found;
  return (
    firstProblem ?? {
      problem: `no semantic model reachable through ${path.join("__") || "(no entity)"} from ${start.name} has it`,
      unsupported: false,
    }
  );
}

/** An entity's key: its column, or the SQL expression its `expr` is (sql/value-expr.ts). */
const keyOf = (entity: MfEntity): string => entity.column ?? entity.expr!;

/**
 * Joins a metric gets without being asked: each foreign entity of its model with exactly one
 * model where that entity is primary. Two candidates (say a full listings table and a
 * mapping of some listings) are ambiguous: they are joined only where a filter names a
 * dimension of one of them, so no integrity check runs against the wrong table.
 */
export function defaultHops(graph: JoinGraph, model: SemanticModel): Hop[] {
  const hops: Hop[] = [];
  for (const entity of model.entities) {
    if (entity.type !== "foreign") continue;
    const primaries = (graph.targets.get(entity.name) ?? []).filter((t) => t.entity.type === "primary" && t.model !== model);
    if (primaries.length !== 1) continue;
    const target = primaries[0]!;
    hops.push({
      from: model,
      to: target.model,
      entity: entity.name,
      from_column: keyOf(entity),
      to_column: keyOf(target.entity),
      relationship: "many_to_one",
    });
  }
  return hops;
}
