import { createHash } from "node:crypto";
import type { GraphSpec } from "@/server/graph/spec/graph-spec";
import type { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { readSpecYaml } from "./parse-spec-yaml";

/**
 * Content identity of specs, for `saveIfChanged`: two specs are the same content when their
 * validated form is, whatever the YAML formatting, comments, key order or spelled-out defaults.
 */

/** Canonical JSON of a validated spec: keys sorted at every level, no whitespace. */
export function serializeSpec(spec: GraphSpec): string {
  return canonicalJson(spec);
}

/** `sha256:<hex>` of the canonical serialization. */
export function specContentHash(spec: GraphSpec): string {
  return hashOf(serializeSpec(spec));
}

/** Reads YAML (throws the located SpecError on a bad spec) and returns its content identity. */
export function specYamlContent(text: string, compiler?: GraphSpecCompiler): { spec: GraphSpec; serialized: string; hash: string } {
  const spec = readSpecYaml(text, compiler);
  const serialized = serializeSpec(spec);
  return { spec, serialized, hash: hashOf(serialized) };
}

function hashOf(serialized: string): string {
  return `sha256:${createHash("sha256").update(serialized).digest("hex")}`;
}

/** True when two validated specs have the same content. */
export function sameSpecContent(a: GraphSpec, b: GraphSpec): boolean {
  return serializeSpec(a) === serializeSpec(b);
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}
