import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { compileGraphSpec } from "@/server/graph/spec/graph-spec-compiler";
import { SpecError } from "@/server/graph/spec/spec-errors";
import { parseSpecYaml } from "./parse-spec-yaml";

/**
 * Whatever text arrives, parse + compile either yields a compiled graph or throws SpecError whose
 * every issue has a 1-based line and column within the text, a path text and a one-line message.
 */

const DIR = path.resolve(import.meta.dirname, "../../config/graphs");
const EXAMPLES = readdirSync(DIR).filter((f) => f.endsWith(".yml")).map((f) => readFileSync(path.join(DIR, f), "utf8"));

function assertOnlyTypedOutcome(text: string): void {
  let thrown: unknown;
  try {
    const { graph } = parseSpecYaml(text);
    expect(graph.nodeNames()).toContain("__end__");
    return;
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SpecError);
  const issues = (thrown as SpecError).issues;
  expect(issues.length).toBeGreaterThan(0);
  const lineCount = text.split(/\r\n|\r|\n/).length;
  for (const issue of issues) {
    expect(Number.isInteger(issue.line) && issue.line! >= 1 && issue.line! <= lineCount + 1).toBe(true);
    expect(Number.isInteger(issue.column) && issue.column! >= 1).toBe(true);
    expect(typeof issue.pathText).toBe("string");
    expect(issue.message.length).toBeGreaterThan(0);
    expect(issue.message).not.toMatch(/\n\s+at /);
  }
}

type Json = unknown;
const KEYS = ["name", "node_type", "config", "trigger", "edges", "nodes", "from", "to", "op", "ms", "seconds", "spec", "targets", "state", "subgraphs", "type", "default", "field", "then", "else", "__start__", "__end__", "ON_RECEIVE"];
const WORDS = [...KEYS, "function", "delay", "human_input", "subgraph", "fan_out", "join", "route_if", "map", "template", "increment", "set_state", "linear", "parallel", "greet", "tick"];

const jsonish: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(null),
  fc.integer({ min: -5, max: 100 }),
  fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }),
);

/** Every path into a JSON value (objects and arrays), root included. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

interface Mutation {
  at: number;
  kind: "replace" | "delete" | "add_key" | "duplicate" | "wrap";
  key: string;
  value: Json;
}

function mutate(root: Json, m: Mutation): Json {
  const all = paths(root);
  const target = all[m.at % all.length];
  if (target.length === 0) return m.kind === "wrap" ? [root] : m.kind === "replace" ? m.value : root;
  const parent = target.slice(0, -1).reduce<any>((o, k) => o[k], root);
  const last = target[target.length - 1];
  switch (m.kind) {
    case "replace":
      parent[last] = m.value;
      break;
    case "delete":
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
      break;
    case "add_key":
      if (parent[last] && typeof parent[last] === "object" && !Array.isArray(parent[last])) parent[last][m.key] = m.value;
      else parent[last] = { [m.key]: m.value };
      break;
    case "duplicate":
      if (Array.isArray(parent)) parent.push(structuredClone(parent[last as number]));
      else parent[`${String(last)}_copy`] = structuredClone(parent[last]);
      break;
    case "wrap":
      parent[last] = [parent[last]];
      break;
  }
  return root;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("replace", "delete", "add_key", "duplicate", "wrap"),
  key: fc.constantFrom(...KEYS),
  value: jsonish,
});

/** Text edits that break YAML structure: cut, insert, swap lines, re-indent. */
const textEdit = fc.record({
  at: fc.nat(),
  len: fc.nat({ max: 12 }),
  insert: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(":", "- ", "  ", "\n", "{", "}", "[", "]", "&a ", "*a", "!!binary ", "\t", "'", '"', "#", "---\n", "? ")),
});

/** Without YAML there are no positions, but still nothing but SpecError, each issue with a path text. */
function assertCompilerOnlyThrowsSpecError(input: unknown): void {
  try {
    compileGraphSpec(input);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    for (const issue of (error as SpecError).issues) expect(typeof issue.pathText).toBe("string");
  }
}

// 3,200 YAML cases and 3,000 plain-data cases. YAML parsing dominates the time (a few ms per document).
describe("spec fuzz: parse + compile only ever fails with a located SpecError", () => {
  it("random text", () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), assertOnlyTypedOutcome), { numRuns: 1000 });
  }, 60_000);

  it("random YAML-shaped text", () => {
    const line = fc.tuple(fc.nat({ max: 6 }), fc.constantFrom(...WORDS), fc.constantFrom(": ", ":", "- ", " "), jsonish).map(
      ([indent, key, sep, value]) => `${" ".repeat(indent)}${key}${sep}${JSON.stringify(value) ?? ""}`,
    );
    fc.assert(fc.property(fc.array(line, { maxLength: 30 }), (lines) => assertOnlyTypedOutcome(lines.join("\n"))), { numRuns: 600 });
  }, 60_000);

  it("valid example specs with structural mutations", () => {
    const arb = fc.tuple(fc.constantFrom(...EXAMPLES), fc.array(mutation, { minLength: 1, maxLength: 4 }));
    fc.assert(
      fc.property(arb, ([text, mutations]) => {
        const mutated = mutations.reduce(mutate, parseYaml(text) as Json);
        assertOnlyTypedOutcome(stringifyYaml(mutated) ?? "");
      }),
      { numRuns: 800 },
    );
  }, 60_000);

  it("valid example specs with text edits", () => {
    const arb = fc.tuple(fc.constantFrom(...EXAMPLES), fc.array(textEdit, { minLength: 1, maxLength: 3 }));
    fc.assert(
      fc.property(arb, ([text, edits]) => {
        const edited = edits.reduce((t, e) => {
          const at = e.at % (t.length + 1);
          return t.slice(0, at) + e.insert + t.slice(at + e.len);
        }, text);
        assertOnlyTypedOutcome(edited);
      }),
      { numRuns: 800 },
    );
  }, 60_000);

  it("arbitrary values given to the compiler directly", () => {
    fc.assert(fc.property(fc.anything({ maxDepth: 4 }), assertCompilerOnlyThrowsSpecError), { numRuns: 1000 });
  }, 60_000);

  it("mutated example specs given to the compiler directly", () => {
    const objects = EXAMPLES.map((t) => parseYaml(t) as Json);
    const arb = fc.tuple(fc.constantFrom(...objects), fc.array(mutation, { minLength: 1, maxLength: 5 }));
    fc.assert(fc.property(arb, ([spec, mutations]) => assertCompilerOnlyThrowsSpecError(mutations.reduce(mutate, structuredClone(spec)))), { numRuns: 2000 });
  }, 60_000);
});
