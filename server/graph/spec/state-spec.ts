import { z } from "zod";
import { defineGraphState, type GraphStateSchema } from "../state";
import { specIssue, type SpecIssue } from "./spec-errors";

export const STATE_FIELD_TYPES = ["string", "number", "boolean", "array", "object", "any"] as const;
export type StateFieldType = (typeof STATE_FIELD_TYPES)[number];

/** Names the engine keeps on every state; a spec may not redeclare them. */
export const RESERVED_STATE_FIELDS = ["result", "resumeTarget", "resumeWith"] as const;

export const StateFieldSpecSchema = z
  .object({
    type: z.enum(STATE_FIELD_TYPES).default("any").describe("Value type of the field: string, number, boolean, array, object or any."),
    default: z.unknown().optional().describe("Initial value. Without one: \"\", 0, false, [], {} or null by type."),
    description: z.string().optional().describe("What the field holds (shown in the editor)."),
  })
  .strict()
  .describe("One field of the graph state, shared by every node of a run.");

export const StateSpecSchema = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "state field names are identifiers"), StateFieldSpecSchema)
  .describe("The graph state: field name → { type, default, description }. Nodes read and write it by name.");

export type StateFieldSpec = z.output<typeof StateFieldSpecSchema>;

const IMPLICIT_DEFAULTS: Record<StateFieldType, () => unknown> = {
  string: () => "",
  number: () => 0,
  boolean: () => false,
  array: () => [],
  object: () => ({}),
  any: () => null,
};

function fieldType(type: StateFieldType): z.ZodType {
  switch (type) {
    case "string":
      return z.string();
    case "number":
      return z.number();
    case "boolean":
      return z.boolean();
    case "array":
      return z.array(z.unknown());
    case "object":
      return z.record(z.string(), z.unknown());
    case "any":
      return z.unknown();
  }
}

/** True when `value` may be stored in a state field of `type` (what the state schema accepts on load). */
export function stateFieldAccepts(type: StateFieldType, value: unknown): boolean {
  return fieldType(type).safeParse(value).success;
}

/** The state-field type of a value, for messages: string, number, boolean, array, object or null. */
export function valueTypeOf(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : typeof value;
}

/** Builds the zod state schema of a spec; a default that does not match its type is an issue. */
export function buildStateSchema(fields: Readonly<Record<string, StateFieldSpec>>): {
  schema: GraphStateSchema;
  issues: SpecIssue[];
} {
  const issues: SpecIssue[] = [];
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(fields)) {
    if ((RESERVED_STATE_FIELDS as readonly string[]).includes(name)) {
      issues.push(specIssue("schema", ["state", name], `state field "${name}" is reserved by the engine`));
      continue;
    }
    const type = fieldType(field.type);
    const initial = field.default === undefined ? IMPLICIT_DEFAULTS[field.type]() : field.default;
    if (!type.safeParse(initial).success) {
      issues.push(specIssue("schema", ["state", name, "default"], `default does not match type ${field.type}`));
      continue;
    }
    // A factory, so every run starts from its own copy of an array or object default.
    shape[name] = type.default(() => structuredClone(initial) as never);
  }
  return { schema: defineGraphState(shape) as unknown as GraphStateSchema, issues };
}
