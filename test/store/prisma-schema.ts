// A deliberately small reader of prisma/schema.prisma: what PostgreSQL tables, columns, keys and
// indexes `prisma migrate` would create from it, with Prisma's naming conventions. It throws on
// any construct it does not know, so the agreement test cannot pass by ignoring new schema features.

export interface ExpectedColumn {
  name: string;
  /** information_schema.columns.data_type */
  type: string;
  nullable: boolean;
  /** datetime_precision for timestamps */
  precision?: number;
  default: "autoincrement" | "now" | null;
}

export interface ExpectedTable {
  name: string;
  columns: ExpectedColumn[];
  primaryKey: { name: string; columns: string[] };
  indexes: { name: string; columns: string[] }[];
  foreignKeys: { name: string; column: string; references: string; onDelete: string }[];
}

const SCALARS: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Boolean: "boolean",
  DateTime: "timestamp without time zone",
  Float: "double precision",
};
const ON_DELETE: Record<string, string> = { Cascade: "CASCADE", Restrict: "RESTRICT", SetNull: "SET NULL", NoAction: "NO ACTION" };

const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function expectedTables(schema: string): ExpectedTable[] {
  const source = schema.replace(/\/\/.*$/gm, "");
  const modelNames = [...source.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1]!);
  if (/^(enum|type|view)\s/m.test(source)) throw new Error("schema uses enum/type/view: teach prisma-schema.ts about it");
  const blocks = [...source.matchAll(/^model\s+(\w+)\s*\{([^}]*)\}/gm)];
  const tableOf = new Map(blocks.map(([, model, body]) => [model!, /@@map\("([^"]+)"\)/.exec(body!)?.[1] ?? model!]));

  const columnsOf = new Map<string, Map<string, string>>();
  const pending: { fk: ExpectedTable["foreignKeys"][number]; model: string; fields: string[] }[] = [];
  const tables = blocks.map(([, model, body]) => {
    const table = tableOf.get(model!)!;
    const columns: ExpectedColumn[] = [];
    const fieldToColumn = new Map<string, string>();
    columnsOf.set(model!, fieldToColumn);
    const fks: ExpectedTable["foreignKeys"] = [];
    let primaryKey: string[] = [];
    const indexes: ExpectedTable["indexes"] = [];
    const blockAttrs: string[] = [];

    for (const line of body!
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)) {
      if (line.startsWith("@@")) {
        blockAttrs.push(line);
        continue;
      }
      const m = /^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
      if (!m) throw new Error(`cannot read field line "${line}" in ${model}`);
      const [, field, type, isList, optional, attrText] = m;
      if (modelNames.includes(type!)) {
        const rel = /@relation\(fields:\s*\[([^\]]*)\],\s*references:\s*\[([^\]]*)\](?:,\s*onDelete:\s*(\w+))?\)/.exec(attrText!);
        if (rel) {
          const fk = { name: list(rel[1]!).join(","), column: "", references: "", onDelete: ON_DELETE[rel[3] ?? "Restrict"]! };
          fks.push(fk);
          pending.push({ fk, model: type!, fields: list(rel[2]!) });
        }
        continue;
      }
      if (isList || !SCALARS[type!]) throw new Error(`unsupported type ${type}${isList ?? ""} of ${model}.${field}`);
      const attrs = attrText!.match(/@[\w.]+(\((?:[^()]|\([^()]*\))*\))?/g) ?? [];
      const column: ExpectedColumn = { name: field!, type: SCALARS[type!]!, nullable: Boolean(optional), default: null };
      if (type === "DateTime") column.precision = 3;
      for (const attr of attrs) {
        const map = /^@map\("([^"]+)"\)$/.exec(attr);
        const tz = /^@db\.Timestamptz\((\d+)\)$/.exec(attr);
        if (map) column.name = map[1]!;
        else if (tz) Object.assign(column, { type: "timestamp with time zone", precision: Number(tz[1]) });
        else if (attr === "@id")
          continue; // below, once @map has named the column
        else if (attr === "@default(autoincrement())") column.default = "autoincrement";
        else if (attr === "@default(now())") column.default = "now";
        else throw new Error(`unsupported attribute ${attr} on ${model}.${field}`);
      }
      if (attrs.some((attr) => attr === "@id")) primaryKey = [column.name];
      fieldToColumn.set(field!, column.name);
      columns.push(column);
    }

    const toColumns = (fields: string) => list(fields).map((f) => fieldToColumn.get(f) ?? fail(`unknown field ${f} in ${model}`));
    for (const attr of blockAttrs) {
      const index = /^@@index\(\[([^\]]*)\]\)$/.exec(attr);
      const id = /^@@id\(\[([^\]]*)\]\)$/.exec(attr);
      if (index) {
        const cols = toColumns(index[1]!);
        indexes.push({ name: `${table}_${cols.join("_")}_idx`, columns: cols });
      } else if (id) primaryKey = toColumns(id[1]!);
      else if (!/^@@map\("[^"]+"\)$/.test(attr)) throw new Error(`unsupported block attribute ${attr} in ${model}`);
    }
    for (const fk of fks) {
      const cols = toColumns(fk.name);
      fk.column = cols.join(",");
      fk.name = `${table}_${cols.join("_")}_fkey`;
    }
    return { name: table, columns, primaryKey: { name: `${table}_pkey`, columns: primaryKey }, indexes, foreignKeys: fks };
  });
  for (const { fk, model, fields } of pending) {
    const referenced = fields.map((f) => columnsOf.get(model)?.get(f) ?? fail(`unknown field ${model}.${f}`));
    fk.references = `${tableOf.get(model)}(${referenced.join(",")})`;
  }
  return tables;
}

function fail(message: string): never {
  throw new Error(message);
}
