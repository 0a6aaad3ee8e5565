import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { recordingLogger } from "@/server/agent/logger";
import { testServices } from "../testing/test-services";
import { AppExtensions } from "./app-extensions";
import { reportOf } from "./testing/report-of";
import { rowsContaining } from "./testing/rows-containing";

const SECRET = "sk-live0123456789abcdefXYZ";
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });
const kb = (args: Record<string, unknown>) => ({ toolCalls: [{ name: "knowledge_base", args }] });

/** The app's services with extensions from `files`, review-cycle's agent nodes on `scripts` (coder, reviewer). */
async function graphAppWith(files: Record<string, string>, scripts: Record<string, Script>) {
  const dir = tempDir("modex-ext-");
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const workspace = tempDir("modex-ws-");
  const providers = Object.fromEntries(Object.entries(scripts).map(([n, s]) => [n, new ScriptedProvider(s)]));
  const extensions = new AppExtensions({ dir, logger: recordingLogger() });
  const t = testServices("sqlite", { provider: (_c, node) => providers[node], workspace }, { extensions });
  await extensions.load();
  return { t, providers, extensions, workspace };
}

/** The tool results the last request of `provider` carried, in order. */
const toolResults = (provider: ScriptedProvider) => (provider.requests.at(-1)?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

describe("extensions in graph runs (agent nodes built by the app's assembly)", () => {
  it("secret masking: what agent nodes stream (text and reasoning), pass to tools, write to the knowledge base and deliver is masked in the instance view, the event log, the live stream and the database", async () => {
    const scripts: Record<string, Script> = {
      coder: [
        { reasoning: `the key must be ${SECRET} here`, text: `Using ${SECRET} now.`, ...kb({ action: "write", pattern: "decisions", content: `- the key is ${SECRET}` }) },
        deliver("reviewer", `add(a, b) with ${SECRET}`),
        { text: `sent ${SECRET}` },
      ],
      reviewer: [kb({ action: "read", pattern: "decisions" }), deliver("__end__", `approved: ${SECRET}`), { text: "approved" }],
    };
    const { t, workspace } = await graphAppWith({ "extensions.yml": "builtins:\n  secret_masking: {}\n" }, scripts);
    await using _t = t;
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    const live: string[] = [];
    t.services.agentRuns.subscribe(instanceId, (d) => live.push(d.text));
    expect((await t.settled(instanceId)).status).toBe("completed");

    const view = await t.services.instances.get({ instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual(["approved: [masked]"]);
    expect(JSON.stringify(view)).not.toContain(SECRET);
    const events = JSON.stringify(await t.services.events.list(instanceId));
    expect(events).toContain("the key must be [masked] here");
    expect(events).not.toContain(SECRET);
    expect(live.join("")).toContain("[masked]");
    expect(live.join("")).not.toContain(SECRET);
    const kbDir = path.join(workspace, ".modex/graphs/instances", instanceId);
    for (const file of readdirSync(kbDir)) expect(readFileSync(path.join(kbDir, file), "utf8")).not.toContain(SECRET);
    expect(rowsContaining(t.databaseFile!, SECRET)).toEqual([]);
  });

  it("ctx.agentId names the graph node an extension is called for, at every point of its turns", async () => {
    const mod = `export default { name: "who", seen: new Set(), onBeforeMessageProcess(ctx) { this.seen.add(ctx.agentId); }, onBeforeLlmCall(ctx) { this.seen.add(ctx.agentId); }, onBeforeToolExecute(ctx) { this.seen.add(ctx.agentId); }, onBeforeResponseSend(ctx) { this.seen.add(ctx.agentId); } };`;
    const scripts: Record<string, Script> = {
      coder: [kb({ action: "write", pattern: "decisions", content: "- add" }), deliver("reviewer", "add(a, b)"), { text: "sent" }],
      reviewer: [kb({ action: "read", pattern: "decisions" }), deliver("__end__", "approved"), { text: "approved" }],
    };
    const { t, extensions } = await graphAppWith({ "extensions.yml": "builtins: {}\n", "who.mjs": mod }, scripts);
    await using _t = t;
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    expect((await t.settled(instanceId)).status).toBe("completed");
    expect([...(extensions.manager.get("who") as unknown as { seen: Set<unknown> }).seen].sort()).toEqual(["coder", "reviewer"]);
  });

  it("a module's BEFORE_TOOL_PARSE, BEFORE_RAG_QUERY and AFTER_RAG_RESULTS act on an agent node's tool calls (knowledge-base greps and reads)", async () => {
    const mod = `export default {
      name: "node_tools", queries: [],
      onBeforeToolParse(ctx) {
        ctx.set("toolCalls", ctx.get("toolCalls", []).map((c) => ({ ...c, arguments: c.arguments.replace("DRAFT", "FINAL") })));
      },
      onBeforeRagQuery(ctx) { this.queries.push(ctx.get("action") + ":" + ctx.get("query")); return ctx.get("query") === "subtract" ? "add" : undefined; },
      onAfterRagResults(ctx) { return ctx.get("results", []).map((r) => ({ ...r, text: "[rag] " + r.text })); },
    };`;
    const scripts: Record<string, Script> = {
      coder: [kb({ action: "write", pattern: "decisions", content: "- add returns a + b" }), deliver("reviewer", "add(a, b) DRAFT"), { text: "sent" }],
      reviewer: [
        kb({ action: "grep", regex: "subtract" }),
        kb({ action: "read", pattern: "decisions" }),
        deliver("__end__", "ok"),
        { text: "done" },
      ],
    };
    const { t, providers, extensions } = await graphAppWith({ "node-tools.mjs": mod }, scripts);
    await using _t = t;
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    expect((await t.settled(instanceId)).status).toBe("completed");
    const view = await t.services.instances.get({ instanceId });
    expect(JSON.stringify(view.delivers.filter((d) => d.source === "coder"))).toContain("add(a, b) FINAL");
    expect((extensions.manager.get("node_tools") as unknown as { queries: string[] }).queries).toEqual(["grep:subtract", "read:decisions"]);
    const [grep, read] = toolResults(providers.reviewer).filter((c) => !c.startsWith("Delivered"));
    expect(grep).toBe("[rag] decisions.md:1: - add returns a + b");
    expect(read).toContain("[rag] ");
    expect(read).toContain("- add returns a + b");
  });

  it("the token budget's per_instance budget counts every agent node of a graph run: a later node's model call is vetoed", async () => {
    const scripts: Record<string, Script> = {
      // The coder's turn ends at 120 tokens; the reviewer's first model call is past the run's 100.
      coder: [kb({ action: "write", pattern: "decisions", content: "- add" }), deliver("reviewer", "add(a, b)"), { text: "sent", usage: { inputTokens: 80, outputTokens: 40 } }],
      reviewer: [deliver("__end__", "ok")],
    };
    const { t, providers, extensions } = await graphAppWith({ "extensions.yml": "builtins:\n  token_budget: { per_instance: 100 }\n" }, scripts);
    await using _t = t;
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    expect((await t.settled(instanceId)).status).toBe("failed");
    expect(providers.coder.requests).toHaveLength(3);
    expect(providers.reviewer.requests).toHaveLength(0);
    const view = await t.services.instances.get({ instanceId });
    expect(view.invocations.find((i) => i.node === "reviewer")?.error).toContain("token budget exceeded: this instance used 120 of its 100 tokens");
    expect(reportOf(extensions).extensions[0]).toMatchObject({ name: "token_budget", vetoes: 1, counters: { vetoed: 1 } });
  });
});
