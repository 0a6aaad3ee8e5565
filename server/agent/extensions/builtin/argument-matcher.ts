/**
 * The spec's ArgumentMatcher: whether a tool call's arguments fit a rule. Each key of `args` names an
 * argument; its matcher is a literal (equal), `{ oneOf: [...] }`, `{ pattern: "regex" }` (the whole
 * string value must match) or `{ absent: true }`. Every key must match; no keys matches any call.
 */
export type ValueMatcher = string | number | boolean | null | { oneOf: unknown[] } | { pattern: string } | { absent: true };

export interface ArgumentRule {
  tool: string;
  args?: Record<string, ValueMatcher>;
  /** approve: run without asking; ask: leave it to the person (and stop looking at later rules). */
  decision: "approve" | "ask";
}

export function argumentsMatch(args: Record<string, unknown>, matchers: Record<string, ValueMatcher> = {}): boolean {
  return Object.entries(matchers).every(([key, m]) => valueMatches(args[key], m, Object.hasOwn(args, key)));
}

function valueMatches(value: unknown, m: ValueMatcher, present: boolean): boolean {
  if (m === null || typeof m !== "object") return present && value === m;
  if ("absent" in m) return !present;
  if ("oneOf" in m) return present && m.oneOf.some((v) => v === value);
  return typeof value === "string" && new RegExp(`^(?:${m.pattern})$`).test(value);
}

/** The first rule for the call's tool whose arguments match; null when none does. */
export function firstMatchingRule(rules: readonly ArgumentRule[], tool: string, args: Record<string, unknown>): ArgumentRule | null {
  return rules.find((r) => r.tool === tool && argumentsMatch(args, r.args)) ?? null;
}
