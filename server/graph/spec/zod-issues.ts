import type { z } from "zod";
import { specIssue, type SpecIssue, type SpecPath } from "./spec-errors";

type RawIssue = z.core.$ZodIssue;

/**
 * zod issues as spec issues, with paths absolute in the spec. A failed union is reduced to the
 * branch that got furthest (a list of nodes is not reported as "expected a map"); a wrong
 * discriminator names the value and the choices; each unknown key becomes its own issue, so the
 * YAML layer can point at the key itself.
 */
export function specIssuesFromZod(issues: readonly RawIssue[], input: unknown, base: SpecPath = []): SpecIssue[] {
  return issues.flatMap((issue) => convert(issue, input, base));
}

function convert(issue: RawIssue, input: unknown, base: SpecPath): SpecIssue[] {
  const path = [...base, ...(issue.path as (string | number)[])];
  const kind = path.includes("config") ? "config" : "schema";
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ ...specIssue(kind, [...path, key], `unknown key "${key}"`), target: "key" as const }));
  }
  if (issue.code === "invalid_union") {
    const disc = (issue as { discriminator?: string }).discriminator;
    if (issue.errors.length === 0 && disc !== undefined) return [discriminatorIssue(issue, disc, input, path)];
    const expected = rootTypeExpectations(issue.errors);
    if (expected) return [specIssue(kind, path, `expected ${expected.join(" or ")}, received ${typeName(valueAt(input, path))}`)];
    const best = furthestBranch(issue.errors);
    if (best) return best.flatMap((inner) => convert(inner, input, path));
  }
  if (issue.code === "invalid_type" && path.length > 0 && valueAt(input, path) === undefined) {
    return [specIssue(kind, path, `missing ${JSON.stringify(path[path.length - 1])} (expected ${yamlTypeName(issue.expected)})`)];
  }
  return [specIssue(kind, path, issue.message)];
}

function discriminatorIssue(issue: RawIssue, disc: string, input: unknown, path: SpecPath): SpecIssue {
  const options = ((issue as { options?: unknown[] }).options ?? []).map(String);
  const value = valueAt(input, path);
  const choices = options.join(", ");
  const message =
    value === undefined
      ? `missing ${disc}; expected one of: ${choices}`
      : `unknown ${disc} ${JSON.stringify(value)}; expected one of: ${choices}`;
  // The reported path already ends in the discriminator key.
  return specIssue(path.includes("config") ? "config" : "schema", path, message);
}

/** The branch whose issues do not reject the value's own type, preferring the deepest issues. */
function furthestBranch(branches: readonly (readonly RawIssue[])[]): readonly RawIssue[] | undefined {
  const score = (issues: readonly RawIssue[]) =>
    issues.some((i) => i.path.length === 0 && i.code === "invalid_type") ? -1 : Math.max(0, ...issues.map((i) => i.path.length + 1));
  let best: readonly RawIssue[] | undefined;
  for (const b of branches) if (!best || score(b) > score(best)) best = b;
  return best;
}

/** When every branch of a union rejects the value's own type: the types it would have taken. */
function rootTypeExpectations(branches: readonly (readonly RawIssue[])[]): string[] | null {
  const expected: string[] = [];
  for (const b of branches) {
    if (b.length !== 1 || b[0].path.length !== 0 || b[0].code !== "invalid_type") return null;
    expected.push(yamlTypeName(b[0].expected));
  }
  return expected.length > 0 ? [...new Set(expected)] : null;
}

/** zod's type names as a YAML author reads them. */
function yamlTypeName(zodType: string): string {
  return zodType === "record" || zodType === "object" ? "map" : zodType === "array" ? "list" : zodType;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "list";
  return typeof value === "object" ? "map" : typeof value;
}

export function valueAt(input: unknown, path: SpecPath): unknown {
  let current = input;
  for (const seg of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[seg];
  }
  return current;
}
