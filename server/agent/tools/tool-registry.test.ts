import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isToolError } from "../errors";
import { defineTool, toolSpec } from "./tool";
import { ToolRegistry } from "./tool-registry";

const weather = defineTool({
  name: "get_weather",
  description: "Weather for a city",
  args: z.object({ city: z.string().describe("City name"), unit: z.enum(["c", "f"]).default("c") }),
  execute: ({ city, unit }) => `${city}: 20°${unit}`,
});

const deleteFile = defineTool({
  name: "delete_file",
  description: "Delete a file",
  args: z.object({ path: z.string() }),
  needsApproval: true,
  execute: () => "deleted",
});

describe("defineTool / toolSpec", () => {
  it("turns the zod args schema into a JSON schema for the model", () => {
    const spec = toolSpec(weather);
    expect(spec.name).toBe("get_weather");
    expect(spec.description).toBe("Weather for a city");
    expect(spec.parameters).toMatchObject({
      type: "object",
      properties: { city: { type: "string", description: "City name" }, unit: { enum: ["c", "f"] } },
      required: ["city"],
    });
    expect(spec.parameters.$schema).toBeUndefined();
  });

  it("defaults needsApproval to false", () => {
    expect(weather.needsApproval).toBe(false);
    expect(deleteFile.needsApproval).toBe(true);
  });

  it("rejects names a model API would refuse", () => {
    expect(() => defineTool({ name: "bad name", description: "", args: z.object({}), execute: () => "" })).toThrow();
  });
});

describe("ToolRegistry", () => {
  it("registers, looks up and lists tools in order", () => {
    const registry = new ToolRegistry([weather, deleteFile]);
    expect(registry.get("get_weather")).toBe(weather);
    expect(registry.list().map((t) => t.name)).toEqual(["get_weather", "delete_file"]);
    expect(registry.specs().map((s) => s.name)).toEqual(["get_weather", "delete_file"]);
    expect(registry.needsApproval("delete_file")).toBe(true);
    expect(registry.needsApproval("unknown")).toBe(false);
  });

  it("refuses duplicate names", () => {
    expect(() => new ToolRegistry([weather, weather])).toThrow(expect.toSatisfy(isToolError));
  });
});
