import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { NodeFactory } from "@/server/graph/spec/node-registry";
import { createBuiltinNodeRegistry } from "@/server/graph/spec/builtin-node-types";
import { describeNodeType, describeNodeTypes } from "./node-type-catalog";

const factory = (type: string, configSchema: z.ZodType, description = "Does a thing."): NodeFactory => ({
  type,
  description,
  configSchema,
  create: () => {
    throw new Error("not built in this test");
  },
});

describe("describeNodeTypes", () => {
  it("lists a registry's types in registration order, with their descriptions", () => {
    const types = describeNodeTypes(createBuiltinNodeRegistry().register(factory("custom", z.object({}))));
    expect(types.map((t) => t.name)).toEqual(["function", "delay", "human_input", "subgraph", "fan_out", "join", "custom"]);
    expect(types.find((t) => t.name === "delay")!.description).toMatch(/^Sleeps/);
  });

  it("reads an object config into fields: type, required, values, nested keys, what a value names", () => {
    const info = describeNodeType(
      factory(
        "shape",
        z.object({
          target: z.string().describe("Where to go.").meta({ "x-refers-to": "node" }),
          mode: z.enum(["fast", "slow"]).default("fast"),
          flag: z.boolean().optional(),
          limits: z.object({ max: z.number().int() }).optional(),
          names: z.array(z.string()).optional(),
        }),
        "Line one.\n  Line two.",
      ),
    );
    expect(info.description).toBe("Line one. Line two.");
    expect(info.config!.fields).toEqual([
      { name: "target", description: "Where to go.", type: "string", required: true, values: [], refersTo: "node" },
      { name: "mode", description: null, type: '"fast" | "slow"', required: false, values: ["fast", "slow"], refersTo: null },
      { name: "flag", description: null, type: "boolean", required: false, values: ["true", "false"], refersTo: null },
      { name: "limits", description: null, type: "object", required: false, values: [], refersTo: null, fields: [{ name: "max", description: null, type: "integer", required: true, values: [], refersTo: null }] },
      { name: "names", description: null, type: "string[]", required: false, values: [], refersTo: null },
    ]);
    expect(info.configSchema).toMatchObject({ type: "object", required: ["target"] });
  });

  it("says so when a config has no fields to show, or no JSON Schema at all", () => {
    expect(describeNodeType(factory("free", z.unknown())).config).toBeNull();
    const opaque = describeNodeType(factory("opaque", z.custom<string>(() => true)));
    expect(opaque.config).toBeNull();
  });
});
