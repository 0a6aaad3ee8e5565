import { z } from "zod";
import type { NodeFactory, NodeRegistry } from "@/server/graph/spec/node-registry";
import type { NodeTypeConfig, NodeTypeField, NodeTypeInfo, NodeTypeRef, NodeTypeVariant } from "@/shared/graph-node-types";

/**
 * The node types of a registry as the editor and GET /api/graphs/node-types show them. Each type's
 * `configSchema` (zod) is the source: its JSON Schema is read into fields, so a new type (or a new key)
 * is listed without anything written here.
 */
export function describeNodeTypes(registry: NodeRegistry): NodeTypeInfo[] {
  return registry.list().map(describeNodeType);
}

export function describeNodeType(factory: NodeFactory): NodeTypeInfo {
  const configSchema = configJsonSchema(factory);
  return { name: factory.type, description: oneLine(factory.description), config: configSchema ? configOf(configSchema) : null, configSchema };
}

type Json = Record<string, unknown>;

function configJsonSchema(factory: NodeFactory): Json | null {
  try {
    const { $schema: _drop, ...schema } = z.toJSONSchema(factory.configSchema, { io: "input", unrepresentable: "any" }) as Json;
    return schema;
  } catch {
    return null; // a schema zod cannot express (a custom type, a cycle): the type is listed without fields
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The fields of an object schema, or of a union of object schemas; null for any other shape. */
export function configOf(schema: Json): NodeTypeConfig | null {
  if (isObject(schema)) return { fields: fieldsOf(schema) };
  const options = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (!options?.length || !options.every(isObject)) return null;
  const variants = options.map((o) => fieldsOf(o));
  const fields = mergeFields(variants);
  const key = discriminatorOf(options);
  if (!key) return { fields };
  const tag = fields.find((f) => f.name === key)!;
  tag.description = `One of ${tag.values.join(", ")}; each takes its own keys.`;
  return {
    fields,
    discriminator: {
      key,
      variants: options.map((o, i) => {
        const tag = (o.properties as Record<string, Json>)[key];
        return { value: String(tag.const ?? (tag.enum as unknown[])[0]), description: str(tag.description), fields: variants[i] } satisfies NodeTypeVariant;
      }),
    },
  };
}

function isObject(schema: Json): boolean {
  return schema.type === "object" && typeof schema.properties === "object";
}

function fieldsOf(schema: Json): NodeTypeField[] {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(schema.properties as Record<string, Json>).map(([name, prop]) => fieldOf(name, prop, required.has(name)));
}

function fieldOf(name: string, prop: Json, required: boolean): NodeTypeField {
  const field: NodeTypeField = { name, description: str(prop.description), type: typeText(prop), required, values: valuesOf(prop), refersTo: refOf(prop) };
  if (isObject(prop)) field.fields = fieldsOf(prop);
  return field;
}

/** Keys of several variants, once each (the first variant's description); required only when all require it. */
function mergeFields(variants: NodeTypeField[][]): NodeTypeField[] {
  const byName = new Map<string, NodeTypeField>();
  for (const fields of variants) {
    for (const f of fields) {
      const seen = byName.get(f.name);
      if (!seen) byName.set(f.name, { ...f, values: [...f.values] });
      else if (f.values.some((v) => !seen.values.includes(v))) {
        seen.values = [...new Set([...seen.values, ...f.values])];
        seen.type = seen.values.map((v) => JSON.stringify(v)).join(" | ");
      }
    }
  }
  for (const f of byName.values()) f.required = variants.every((fields) => fields.some((g) => g.name === f.name && g.required));
  return [...byName.values()];
}

/** The key every option fixes to a literal of its own (a discriminated union's tag). */
function discriminatorOf(options: Json[]): string | null {
  const first = options[0].properties as Record<string, Json>;
  return Object.keys(first).find((key) => options.every((o) => isLiteral((o.properties as Record<string, Json>)[key]))) ?? null;
}

function isLiteral(prop: Json | undefined): boolean {
  return prop !== undefined && (prop.const !== undefined || (Array.isArray(prop.enum) && prop.enum.length === 1));
}

function valuesOf(prop: Json): string[] {
  if (prop.const !== undefined) return [String(prop.const)];
  if (Array.isArray(prop.enum)) return prop.enum.map(String);
  if (prop.type === "boolean") return ["true", "false"];
  return [];
}

function refOf(prop: Json): NodeTypeRef | null {
  const items = prop.items as Json | undefined;
  return ((prop["x-refers-to"] ?? items?.["x-refers-to"]) as NodeTypeRef | undefined) ?? null;
}

function typeText(prop: Json): string {
  if (prop.const !== undefined) return JSON.stringify(prop.const);
  if (Array.isArray(prop.enum)) return prop.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (prop.type === "array") return `${prop.items ? typeText(prop.items as Json) : "any"}[]`;
  if (typeof prop.type === "string") return prop.type === "integer" ? "integer" : prop.type;
  const options = (prop.anyOf ?? prop.oneOf) as Json[] | undefined;
  if (options) return options.map(typeText).join(" | ");
  return "any";
}

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}
