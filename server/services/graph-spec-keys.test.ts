import { describe, expect, it } from "vitest";
import { graphSpecJsonSchema } from "@/server/graph/spec/graph-spec";
import { END, START } from "@/server/graph/names";
import * as keys from "@/shared/graph-spec-keys";

/** The editor's copy of the spec format's keys (shared/graph-spec-keys.ts) says what the zod schemas say. */

type Props = Record<string, { description?: string; enum?: string[]; const?: string; type?: string }>;

const schema = graphSpecJsonSchema() as any;
const node = schema.properties.nodes.anyOf[0].items.oneOf[0];
// The node's `node_type` and `config` are documented per node type (GET /api/graphs/node-types).
const PER_TYPE = new Set(["node_type", "config"]);

const GROUPS: [string, readonly keys.SpecKey[], Props][] = [
  ["top level", keys.TOP_LEVEL_KEYS, schema.properties],
  ["node", keys.NODE_KEYS, node.properties],
  ["edge", keys.EDGE_KEYS, schema.properties.edges.items.properties],
  ["state field", keys.STATE_FIELD_KEYS, schema.properties.state.additionalProperties.properties],
  ["retry", keys.RETRY_KEYS, node.properties.retry.properties],
  ["defaults", keys.DEFAULTS_KEYS, schema.properties.defaults.properties],
  ["subgraph", keys.SUBGRAPH_KEYS, schema.properties.subgraphs.additionalProperties.properties],
  ["schedule", keys.SCHEDULE_KEYS, schema.properties.schedules.items.properties],
];

describe("the editor's spec keys", () => {
  it.each(GROUPS)("%s: the schema's keys, descriptions and values", (_name, listed, props) => {
    expect(listed.map((k) => k.name)).toEqual(Object.keys(props));
    for (const key of listed.filter((k) => !PER_TYPE.has(k.name))) {
      const prop = props[key.name];
      expect(key.description).toBe(prop.description);
      const values = prop.enum ?? (prop.const !== undefined ? [prop.const] : prop.type === "boolean" ? ["true", "false"] : undefined);
      expect(key.values).toEqual(values);
    }
  });

  it("names the entry and exit as the engine does", () => {
    expect([keys.SPEC_START, keys.SPEC_END]).toEqual([START, END]);
  });
});
