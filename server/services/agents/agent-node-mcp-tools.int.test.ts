import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { ScriptedProvider, type ScriptedReply } from "@/server/agent/llm/providers/scripted-provider";
import { isAgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import { EVERYTHING_SERVER } from "@/server/agent/tools/mcp/mcp-test-servers";
import { createAppServices, type AppServices } from "../app-services";
import { AuthService } from "../auth-service";
import { TEST_TOKEN } from "../testing/test-services";
import { waitingFor } from "../waiting-for";

// A spec node's own `config.tools` names MCP tools as agent definitions do (`<server>__<tool>`,
// `<server>__*`), checked when the spec is validated (an unknown server or tool is an issue at its line),
// and the node's agent calls them in a run — here the MCP project's reference server, started over stdio.

const open: Array<{ services: AppServices; temp: TempDatabase; dir: string }> = [];
afterEach(async () => {
  for (const { services, temp, dir } of open.splice(0)) {
    services.recovery.stop();
    services.triggers.end();
    await services.orchestrator.drainAll();
    // The server process the run started (the services do not stop MCP servers themselves).
    for (const s of services.agents.mcpServers()) if (s.pid) process.kill(s.pid);
    temp[Symbol.dispose]();
    rmSync(dir, { recursive: true, force: true });
  }
});

function setup(script: ScriptedReply[] = []) {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-mcp-"));
  writeFileSync(
    path.join(dir, "everything.yml"),
    ["name: everything", "transport: stdio", `command: ${JSON.stringify(process.execPath)}`, `args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]`].join("\n"),
  );
  const temp = new TempDatabase();
  const provider = new ScriptedProvider(script);
  const services = createAppServices({ db: temp.db, auth: new AuthService(TEST_TOKEN), heartbeatMs: 0, drainWaitMs: 2_000, agents: { mcpDir: dir, provider: () => provider } });
  open.push({ services, temp, dir });
  return { services, provider };
}

/** One inline agent node with `config` (flow YAML), start → solo → end. */
const spec = (config: string) =>
  ["name: mcp-node", "nodes:", "  - name: solo", "    node_type: agent", `    config: ${config}`, "edges:", "  - { from: __start__, to: solo }", "  - { from: solo, to: __end__ }"].join("\n");

const located = (issues: readonly { line?: number; column?: number; message: string }[]) => issues.map((i) => `${i.line}:${i.column} ${i.message}`);
/** `line:column` of the first `text` in `yaml` (1-based), where an issue about it must point. */
const at = (yaml: string, text: string) => {
  const lines = yaml.split("\n");
  const line = lines.findIndex((l) => l.includes(text));
  return `${line + 1}:${lines[line].indexOf(text) + 1}`;
};

async function settled(services: AppServices, instanceId: string) {
  await services.orchestrator.settled(instanceId);
  return (await services.orchestrator.coordinator.instances.load(instanceId))!;
}

describe("MCP tools named by a spec node's config.tools", () => {
  it("validate: a configured server's tools (and <server>__*) are accepted before it starts; an unknown server is an issue at its line", () => {
    const { services } = setup();
    expect(services.specs.validate(spec("{ instructions: Add., tools: [todo_write, everything__get-sum, everything__*] }"))).toEqual({ ok: true, issues: [] });
    const yaml = spec("{ instructions: Add., tools: [everything__echo, ghost__echo] }");
    const { ok, issues } = services.specs.validate(yaml);
    expect(ok).toBe(false);
    expect(located(issues)).toEqual([`${at(yaml, "ghost__echo")} no tool named "ghost__echo" in the tool catalog (no MCP server "ghost" in config/mcp; configured: everything)`]);
    // The server starts only when an agent uses it: validation started nothing.
    expect(services.agents.mcpServers().map((s) => s.state)).toEqual(["not_started"]);
  });

  it("a run calls the node's MCP tool; once the server listed its tools, an unknown one of it is an issue naming them", async () => {
    const { services, provider } = setup([
      { toolCalls: [{ name: "everything__get-sum", args: { a: 2, b: 40 } }] },
      { toolCalls: [{ name: "deliver", args: { content: "the sum is 42" } }] },
      { text: "delivered" },
    ]);
    await services.specs.save(spec("{ instructions: Add the numbers., tools: [everything__get-sum] }"));
    const { instanceId } = await services.orchestrator.create({ spec: "mcp-node", input: "add 2 and 40" });
    expect((await settled(services, instanceId)).status).toBe("completed");
    expect(provider.requests[0].tools.map((t) => t.name)).toEqual(expect.arrayContaining(["everything__get-sum", "deliver"]));
    expect(provider.requests[0].tools.map((t) => t.name)).not.toContain("everything__echo");
    expect(provider.requests[1].messages.find((m) => m.role === "tool")?.content).toMatch(/42/);
    const view = await services.instances.get({ instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual(["the sum is 42"]);

    const unknown = spec("{ instructions: Add., tools: [everything__get-sum, everything__nope] }");
    const { issues } = services.specs.validate(unknown);
    expect(located(issues)).toEqual([expect.stringMatching(new RegExp(`^${at(unknown, "everything__nope")} `))]);
    expect(located(issues)).toEqual([expect.stringMatching(/no tool named "everything__nope" in the tool catalog \(MCP server "everything" has no tool "nope"; its tools: .*everything__echo.*\)$/)]);
  }, 30_000);

  it("the node's approval rules apply to its MCP tools: the call waits for a person, and Approve runs it", async () => {
    const { services, provider } = setup([
      { toolCalls: [{ name: "everything__echo", args: { message: "hello" } }] },
      { toolCalls: [{ name: "deliver", args: { content: "echoed" } }] },
      { text: "done" },
    ]);
    await services.specs.save(spec("{ instructions: Echo., tools: [everything__echo], approval: { tools: [everything__echo] } }"));
    const { instanceId } = await services.orchestrator.create({ spec: "mcp-node", input: "echo hello" });
    const paused = await settled(services, instanceId);
    expect(paused.status).toBe("paused");
    expect(waitingFor(paused)).toMatchObject({ tool: "everything__echo", node: "solo" });
    expect(isAgentApprovalRequest(waitingFor(paused))).toBe(true);
    await services.control.decide({ instanceId, approved: true, by: "test" });
    expect((await settled(services, instanceId)).status).toBe("completed");
    expect(provider.requests[1].messages.find((m) => m.role === "tool")?.content).toBe("Echo: hello");
  }, 30_000);

  it("an approval rule naming an unknown tool is an issue at its line too", () => {
    const { services } = setup();
    const yaml = spec("{ instructions: Echo., tools: [everything__echo], approval: { tools: [{ tool: ghost__echo, when: { message: x } }] } }");
    const { issues } = services.specs.validate(yaml);
    expect(located(issues)).toEqual([expect.stringMatching(new RegExp(`^${at(yaml, "ghost__echo")} no tool named "ghost__echo" in the tool catalog \\(no MCP server "ghost"`))]);
  });
});
