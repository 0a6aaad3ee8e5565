import { isGraphPayload } from "../payload";

/**
 * How declarative nodes see what was delivered to them: the value, not the envelope. A graph
 * payload gives its content, a subgraph's completion its result contents (one value, or a list when
 * there were several).
 */
export function unwrapValue(content: unknown): unknown {
  if (isGraphPayload(content)) return unwrapValue(content.content);
  if (isRecord(content)) {
    if (typeof content.subgraph === "string" && Array.isArray(content.result)) {
      const values = content.result.map(unwrapValue);
      return values.length === 1 ? values[0] : values;
    }
    // A delay's tick as delays delivered it before they passed their input on unchanged: a ledger
    // written by an older Modex may still hold one for a run that goes on after the upgrade.
    if (content.tick === true && "sleptMs" in content && "input" in content) return unwrapValue(content.input);
  }
  return content;
}

/** Reads `a.b.0.c` from a value; undefined where the path does not exist. */
export function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".").filter(Boolean)) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isRecord(current) && Object.hasOwn(current, key)) current = current[key];
    else return undefined;
  }
  return current;
}

/** Renders `{{input}}`, `{{input.name}}` and `{{state.count}}`; objects render as JSON. */
export function renderTemplate(template: string, scope: { input: unknown; state: unknown }): string {
  return template.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (_m, path: string) => {
    const [root, ...rest] = path.split(".");
    if (root !== "input" && root !== "state") return "";
    return display(readPath(scope[root], rest.join(".")));
  });
}

function display(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export const COMPARISONS = ["eq", "ne", "lt", "lte", "gt", "gte", "in", "truthy"] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** Compares with plain JSON equality (deep for lists and objects); ordering only between numbers or strings. */
export function compareValues(left: unknown, how: Comparison, right: unknown): boolean {
  switch (how) {
    case "eq":
      return sameValue(left, right);
    case "ne":
      return !sameValue(left, right);
    case "in":
      return Array.isArray(right) && right.some((r) => sameValue(left, r));
    case "truthy":
      return Boolean(left) && !(Array.isArray(left) && left.length === 0);
    case "lt":
    case "lte":
    case "gt":
    case "gte":
      return ordered(left, how, right);
  }
}

function ordered(left: unknown, how: "lt" | "lte" | "gt" | "gte", right: unknown): boolean {
  const comparable = (typeof left === "number" && typeof right === "number") || (typeof left === "string" && typeof right === "string");
  if (!comparable) return false;
  const l = left as number | string;
  const r = right as number | string;
  return how === "lt" ? l < r : how === "lte" ? l <= r : how === "gt" ? l > r : l >= r;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
