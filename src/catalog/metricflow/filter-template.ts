// Lexing helpers for MetricFlow filter templates: top-level AND split and the arguments of
// `{{ Dimension('a__b', entity_path=['x']) }}`-style calls.

/** Splits at top-level AND (outside quotes, parentheses and `{{ }}`); `BETWEEN x AND y` stays whole. */
export function splitConjuncts(template: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  let pendingBetween = false;
  for (let i = 0; i < template.length; i += 1) {
    const char = template[i]!;
    if (quote !== null) {
      if (char === "\\") i += 1;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"' || char === "`") quote = char;
    else if (char === "(" || char === "[" || (char === "{" && template[i + 1] === "{")) depth += 1;
    else if (char === ")" || char === "]" || (char === "}" && template[i + 1] === "}")) depth -= 1;
    else if (depth === 0 && /[A-Za-z]/.test(char) && (i === 0 || !/[A-Za-z0-9_]/.test(template[i - 1]!))) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(template.slice(i))![0].toLowerCase();
      if (word === "between") pendingBetween = true;
      else if (word === "and") {
        if (pendingBetween) pendingBetween = false;
        else {
          parts.push(template.slice(start, i));
          start = i + 3;
        }
      }
      i += word.length - 1;
    }
    if (char === "{" && template[i + 1] === "{") i += 1;
    else if (char === "}" && template[i + 1] === "}") i += 1;
  }
  parts.push(template.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

export interface TemplateCall {
  /** the whole `{{ ... }}` text */
  text: string;
  kind: string;
  positional: string[];
  keywords: Record<string, string[]>;
  /** `.grain('month')` and the like: [name, first argument] */
  methods: [string, string | null][];
}

/** `Name(args).method(arg)...` -> its parts, the argument list found by matching parentheses. */
function parseCall(text: string): { kind: string; args: string; rest: string } | null {
  const head = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(text);
  if (!head) return null;
  let depth = 1;
  let quote: string | null = null;
  for (let i = head[0].length; i < text.length; i += 1) {
    const char = text[i]!;
    if (quote !== null) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === "(" || char === "[") depth += 1;
    else if (char === ")" || char === "]") {
      depth -= 1;
      if (depth === 0) {
        const rest = text.slice(i + 1);
        return /^(\s*\.\s*[A-Za-z_]+\s*\([^)]*\))*\s*$/.test(rest) ? { kind: head[1]!, args: text.slice(head[0].length, i), rest } : null;
      }
    }
  }
  return null;
}

function splitArgs(text: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = "";
  for (const char of text) {
    if (quote !== null) {
      current += char;
      if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === "[" || char === "(") depth += 1;
    else if (char === "]" || char === ")") depth -= 1;
    else if (char === "," && depth === 0) {
      args.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  if (current.trim() !== "") args.push(current.trim());
  return args;
}

const unquote = (text: string): string | null => {
  const match = /^(['"])(.*)\1$/s.exec(text.trim());
  return match ? match[2]! : null;
};

function values(text: string): string[] | null {
  const trimmed = text.trim();
  if (trimmed.startsWith("[") && trimmed.endsWith("]")) {
    const items = splitArgs(trimmed.slice(1, -1)).map(unquote);
    return items.every((v): v is string => v !== null) ? items : null;
  }
  const single = unquote(trimmed);
  return single === null ? null : [single];
}

/** The `{{ ... }}` calls of a template, in order; a call that cannot be read is returned as a problem. */
export function templateCalls(template: string): { calls: TemplateCall[] } | { problem: string } {
  if (/\{%|\{#/.test(template)) return { problem: "Jinja statements or comments ({% %}, {# #}) in a filter" };
  const calls: TemplateCall[] = [];
  for (const match of template.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
    const call = parseCall(match[1]!);
    if (!call) return { problem: `Jinja expression ${match[0].trim()}` };
    const positional: string[] = [];
    const keywords: Record<string, string[]> = {};
    for (const arg of splitArgs(call.args)) {
      const keyword = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([\s\S]*)$/.exec(arg);
      if (keyword) {
        const list = values(keyword[2]!);
        if (list === null) return { problem: `argument ${arg} of ${match[0].trim()}` };
        keywords[keyword[1]!] = list;
      } else {
        const value = unquote(arg);
        if (value === null) return { problem: `argument ${arg} of ${match[0].trim()}` };
        positional.push(value);
      }
    }
    const methods: [string, string | null][] = [];
    for (const method of call.rest.matchAll(/\.\s*([A-Za-z_]+)\s*\(([^)]*)\)/g)) methods.push([method[1]!, unquote(method[2]!.trim())]);
    calls.push({ text: match[0], kind: call.kind, positional, keywords, methods });
  }
  return { calls };
}
