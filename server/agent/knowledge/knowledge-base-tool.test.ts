import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toolSpec } from "../tools/tool";
import { GraphKnowledgeBase } from "./knowledge-base";
import { knowledgeActionsFor, knowledgeBaseTool } from "./knowledge-base-tool";
import { KnowledgeUsage } from "./knowledge-usage";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function setup(actions = knowledgeActionsFor([])) {
  const workspace = mkdtempSync(path.join(tmpdir(), "modex-kbt-"));
  dirs.push(workspace);
  const kb = GraphKnowledgeBase.forInstance(workspace, "i1");
  const usage = new KnowledgeUsage();
  return { kb, usage, tool: knowledgeBaseTool({ kb, node: "researcher", actions, usage }) };
}
const ctx = { signal: new AbortController().signal, callId: "c", sessionId: "s", turnId: "t1" };
const readTool = defineTool({ name: "read_file", description: "", args: z.object({}), readOnly: true, execute: () => "" });
const writeTool = defineTool({ name: "write_file", description: "", args: z.object({}), execute: () => "" });

describe("knowledge_base tool", () => {
  it("derives its actions from the agent's tools: only read-only tools make a reader", () => {
    expect(knowledgeActionsFor([readTool])).toEqual(["read", "ls"]);
    expect(knowledgeActionsFor([readTool, writeTool])).toEqual(["read", "write", "edit", "ls", "grep"]);
    expect(knowledgeActionsFor([])).toEqual(["read", "write", "edit", "ls", "grep"]);
    const reader = setup(knowledgeActionsFor([readTool])).tool;
    const schema = toolSpec(reader).parameters as { properties: { action: { enum: string[] } } };
    expect(schema.properties.action.enum).toEqual(["read", "ls"]);
    expect(reader.description).toContain("you are node researcher");
  });

  it("refuses an action outside the agent's set at run time too", async () => {
    const { tool } = setup(["read", "ls"]);
    expect(await tool.execute({ action: "write", pattern: "findings", content: "x" } as never, ctx)).toEqual({
      content: "The write action is not available to this agent: it may read, ls.",
      isError: true,
    });
  });

  it("writes, reads, edits, lists and greps, counting reads and writes per turn", async () => {
    const { tool, usage } = setup();
    expect(await tool.execute({ action: "write", pattern: "findings", content: "- cache hit rate 93%" }, ctx)).toBe("Wrote findings (append).");
    expect(await tool.execute({ action: "edit", pattern: "findings", old_text: "93%", new_text: "95%" }, ctx)).toBe("Edited findings: 1 replacement.");
    expect(await tool.execute({ action: "read", pattern: "findings" }, ctx)).toBe("- cache hit rate 95%");
    expect(await tool.execute({ action: "grep", regex: "hit rate" }, ctx)).toBe("findings.md:1: - cache hit rate 95%");
    expect(await tool.execute({ action: "ls" }, ctx)).toContain("findings.md  1 lines");
    expect(usage.of("t1")).toEqual({ reads: 3, writes: 2 });
    expect(usage.of("other")).toEqual({ reads: 0, writes: 0 });
  });

  it("rejects direct changelog writes and missing arguments as tool errors the model can read", async () => {
    const { tool, usage } = setup();
    expect(await tool.execute({ action: "write", pattern: "changelog", content: "I did it" }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining("maintained by the tool") });
    expect(await tool.execute({ action: "read" }, ctx)).toMatchObject({ isError: true, content: "pattern is required for this action" });
    expect(await tool.execute({ action: "write", pattern: "findings", content: "x", mode: "create" }, ctx)).toBe("Wrote findings (create).");
    expect(await tool.execute({ action: "write", pattern: "findings", content: "y", mode: "create" }, ctx)).toMatchObject({ isError: true });
    expect(usage.of("t1")).toEqual({ reads: 0, writes: 1 });
  });
});
