import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@/server/agent/tools/tool";
import { createBuiltinToolCatalog } from "./builtin-tool-catalog";
import { ToolCatalog } from "./tool-catalog";

const builtins = () => createBuiltinToolCatalog({ modex: () => { throw new Error("not bound"); }, fetchAllowedHosts: ["example.com"] });

describe("the tool catalog", () => {
  it("the app's built-ins, with their approval and read-only flags", () => {
    expect(builtins().list().map((t) => [t.name, t.scope, t.needsApproval, t.readOnly])).toEqual([
      ["deliver", "graph_node", false, false],
      ["knowledge_base", "graph_node", false, false],
      ["todo_write", "any", false, false],
      ["list_graphs", "any", false, true],
      ["instance_status", "any", false, true],
      ["run_graph", "any", true, false],
      ["http_fetch", "any", false, true],
    ]);
  });

  it("tools(names) answers implementations in order, skipping graph-node tools (each node builds its own)", () => {
    expect(builtins().tools(["http_fetch", "deliver", "todo_write"]).map((t) => t.name)).toEqual(["http_fetch", "todo_write"]);
    expect(builtins().all().map((t) => t.name)).not.toContain("deliver");
  });

  it("a name is taken once: adding it again is an error, never a silent swap", () => {
    const tool = defineTool({ name: "echo", description: "", args: z.object({}), execute: () => "x" });
    const catalog = new ToolCatalog().add(tool);
    expect(() => catalog.add(tool)).toThrow('already has a tool named "echo"');
  });

  it("the Modex tools are late-bound: calling one before the services exist fails clearly", async () => {
    const [list] = builtins().tools(["list_graphs"]);
    await expect(list.execute({}, { signal: new AbortController().signal, callId: "c", sessionId: "s", turnId: "t" })).rejects.toThrow("not bound");
  });
});
