/**
 * The node types a server's registry knows, as the editor and GET /api/graphs/node-types see them: each
 * type's name, what it does, and the fields of its `config` (read from its zod schema's JSON Schema).
 */

/** What a config value names, so an editor can offer the right names (`x-refers-to` in the JSON Schema). */
export type NodeTypeRef = "node" | "state_field" | "subgraph" | "agent";

export interface NodeTypeField {
  name: string;
  description: string | null;
  /** The value's type as a person reads it: `string`, `number`, `string[]`, `"a" | "b"`, `object`, `any`. */
  type: string;
  required: boolean;
  /** The values it may take when they are a short list (an enum, a literal, a boolean). */
  values: string[];
  refersTo: NodeTypeRef | null;
  /** The keys of a nested object (e.g. an agent node's `approval`). */
  fields?: NodeTypeField[];
}

/** One alternative of a config that is a union discriminated by one key (the function node's `op`). */
export interface NodeTypeVariant {
  value: string;
  description: string | null;
  fields: NodeTypeField[];
}

export interface NodeTypeConfig {
  /** Every key of the config (of any variant; `required` only when every variant requires it). */
  fields: NodeTypeField[];
  /** Present when the config is a union: which key picks the variant, and each variant's own keys. */
  discriminator?: { key: string; variants: NodeTypeVariant[] };
}

export interface NodeTypeInfo {
  name: string;
  /** One line: what a node of this type does. */
  description: string;
  /** null when the type's config schema cannot be described as fields (it has no object shape). */
  config: NodeTypeConfig | null;
  /** The config's JSON Schema (input side); null when zod could not represent it. */
  configSchema: Record<string, unknown> | null;
}
