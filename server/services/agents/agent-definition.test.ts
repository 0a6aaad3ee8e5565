import { describe, expect, it } from "vitest";
import { isSpecError, type SpecError } from "@/server/graph/spec/spec-errors";
import { agentDefinitionJsonSchema, AgentDefinitionSchema } from "./agent-definition";
import { readAgentYaml, validateAgentYaml } from "./agent-yaml";
import { ToolCatalog } from "./tool-catalog";

const catalog = new ToolCatalog().add({ name: "deliver", scope: "graph_node", description: "", needsApproval: false, readOnly: false });
for (const name of ["todo_write", "http_fetch"]) catalog.add({ name, description: name, args: AgentDefinitionSchema.pick({ name: true }), needsApproval: false, execute: async () => "" });

const yaml = (extra = "") => `name: coder\ndescription: Writes code.\ninstructions: Write it.\n${extra}`;
const issuesOf = (text: string) => {
  try {
    readAgentYaml(text, catalog);
  } catch (e) {
    if (isSpecError(e)) return (e as SpecError).issues;
    throw e;
  }
  return [];
};

describe("agent definitions", () => {
  it("reads a minimal definition with every default spelled out", () => {
    expect(readAgentYaml(yaml(), catalog)).toEqual({
      name: "coder",
      description: "Writes code.",
      instructions: "Write it.",
      tools: [],
      approval: { policy: "tool_default", tools: [] },
      limits: { max_iterations: 25, tool_timeout_seconds: 540, tool_result_limit: 50_000 },
      hooks: { loop_detection: true, length_guard: true, todo_continuation: true, current_time: false, training_data: true },
      knowledge: { require_read: false, require_write: false },
      tracing: {},
      memory: { enabled: true, max_context_tokens: 32_000, keep_recent_messages: 12, consolidate: true },
      extensions: [],
    });
  });

  it("declares the chat's memory budget; a value out of range or an unknown key is an error at its line", () => {
    expect(readAgentYaml(yaml("memory:\n  max_context_tokens: 8000\n  consolidate: false\n"), catalog).memory).toEqual({ enabled: true, max_context_tokens: 8_000, keep_recent_messages: 12, consolidate: false });
    expect(issuesOf(yaml("memory:\n  max_context_tokens: 10\n"))).toMatchObject([{ pathText: "memory.max_context_tokens", line: 5 }]);
    expect(issuesOf(yaml("memory:\n  keep_recent: 3\n"))).toMatchObject([{ line: 5 }]);
  });

  it("loop_detection is on, off, or on with thresholds; a threshold out of range is an error at its line", () => {
    expect(readAgentYaml(yaml("hooks:\n  loop_detection: { window: 4, observation_rounds: 1 }\n"), catalog).hooks.loop_detection).toEqual({ window: 4, observation_rounds: 1 });
    expect(readAgentYaml(yaml("hooks:\n  loop_detection: false\n"), catalog).hooks.loop_detection).toBe(false);
    expect(issuesOf(yaml("hooks:\n  loop_detection:\n    window: 1\n"))).toMatchObject([{ pathText: "hooks.loop_detection.window" }]);
  });

  it("declares the chat's busy-input mode and the span tier; anything else is an error at its line", () => {
    expect(readAgentYaml(yaml("busy_input: INTERRUPT\ntracing:\n  tier: full\n"), catalog)).toMatchObject({ busy_input: "INTERRUPT", tracing: { tier: "full" } });
    expect(issuesOf(yaml("busy_input: LATER\n"))).toMatchObject([{ pathText: "busy_input", line: 4 }]);
    expect(issuesOf(yaml("tracing:\n  tier: verbose\n"))).toMatchObject([{ pathText: "tracing.tier", line: 5 }]);
  });

  it("an unknown tool is an error at its own line and column, naming the catalog", () => {
    const [issue] = issuesOf(yaml("tools:\n  - todo_write\n  - rm_rf\n"));
    expect(issue).toMatchObject({ kind: "reference", pathText: "tools[1]", line: 6, column: 5 });
    expect(issue.message).toBe('no tool named "rm_rf" in the tool catalog (known: deliver, todo_write, http_fetch)');
  });

  it("unknown approval tools, unknown keys, bad limits and bad names are located too", () => {
    const issues = issuesOf(`name: 9lives\ndescription: x\ninstructions: y\nlimits:\n  max_iterations: 0\n  turbo: true\n`);
    expect(issues.map((i) => [i.pathText, i.line])).toEqual([
      ["name", 1],
      ["limits.max_iterations", 5],
      ["limits.turbo", 6],
    ]);
    expect(issuesOf(yaml("approval:\n  tools: [nope]\n"))).toMatchObject([{ pathText: "approval.tools[0]", line: 5 }]);
  });

  it("a YAML syntax error and a missing field have lines; validate answers every issue", () => {
    expect(validateAgentYaml("name: [unclosed\n", catalog)[0]).toMatchObject({ kind: "syntax", line: expect.any(Number) });
    expect(validateAgentYaml("name: a\ninstructions: b\n", catalog)).toMatchObject([{ pathText: "description", message: expect.stringContaining("missing") }]);
    expect(validateAgentYaml(yaml(), catalog)).toEqual([]);
  });

  it("the JSON Schema lists the catalog's tools for completion", () => {
    const schema = agentDefinitionJsonSchema(catalog.names()) as { properties: { tools: { items: { enum: string[] } } }; required: string[] };
    expect(schema.properties.tools.items.enum).toEqual(["deliver", "todo_write", "http_fetch"]);
    expect(schema.required).toEqual(["name", "description", "instructions"]);
  });
});
