import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { TokenBudgetExtension } from "@/server/agent/extensions/builtin/token-budget-extension";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { recordingLogger } from "@/server/agent/logger";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { startAppServices } from "../app-services";
import { testServices } from "../testing/test-services";
import { AppExtensions, type ExtensionsReport } from "./app-extensions";
import { reportOf } from "./testing/report-of";
import { SqliteExtensionSettingsStore } from "./extension-settings-store";

const SECRET = "sk-live0123456789abcdefXYZ";
const CONFIG_DIR = path.resolve(import.meta.dirname, "../../../config/extensions");

/** A temporary extensions folder with these files. */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-ext-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** The app's services with extensions from `files`, the chat on `script`. */
async function appWith(files: Record<string, string>, script: Script) {
  const provider = new ScriptedProvider(script);
  const extensions = new AppExtensions({ dir: folder(files), logger: recordingLogger() });
  const t = testServices("sqlite", { chatProvider: provider }, { extensions });
  await extensions.load();
  return { t, provider, extensions };
}

async function chatTurn(t: ReturnType<typeof testServices>, message: string) {
  const { sessionId } = await t.services.chat.send({ message });
  await t.services.chat.idle(sessionId);
  const events = await t.services.chat.events(sessionId);
  const streamed = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
  const done = events.find((e) => e.type === "turn_completed");
  return { sessionId, events, streamed, done: done?.type === "turn_completed" ? done : undefined };
}

/**
 * A model whose first call asks for a tool (its tokens counted), whose second streams a word and then
 * waits until its signal aborts (the chat interrupting the turn), and whose later calls answer at once.
 */
class CountedThenStalling extends LlmProvider {
  readonly name = "counted-then-stalling";
  private calls = 0;
  aborted = false;
  async *stream(_request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    this.calls++;
    if (this.calls === 1) {
      yield { type: "tool_call_complete", call: { id: "c1", name: "instance_status", arguments: JSON.stringify({ instanceId: "no-such-run" }) } };
      yield { type: "usage_snapshot", usage: { inputTokens: 30, outputTokens: 7, reasoningTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 } };
      yield { type: "finish", reason: "tool_calls" };
      return;
    }
    if (this.calls === 2) {
      yield { type: "text_delta", text: "Still" };
      await new Promise<void>((resolve) => options.signal.addEventListener("abort", () => resolve(), { once: true }));
      this.aborted = true;
      throw new DOMException("aborted", "AbortError");
    }
    yield { type: "text_delta", text: "Fine." };
    yield { type: "finish", reason: "stop" };
  }
}

describe("AppExtensions: loading modules from the extensions folder", () => {
  it("loads an object, a class and a factory; a module that fails is reported with its path and skipped", async () => {
    const dir = folder({
      "a-object.mjs": `export default { name: "obj", onLoopComplete() {} };`,
      "b-class.mjs": `export default class { name = "klass"; priority = 7; onBeforeLlmCall() {} };`,
      "c-factory.mjs": `export default ({ logger }) => ({ name: "made", hasLogger: typeof logger.info === "function" });`,
      "d-throws.mjs": `throw new Error("boom at import");`,
      "e-not-extension.mjs": `export default 42;`,
      "f-syntax.js": `export default {;`,
      "notes.txt": "ignored",
    });
    const logger = recordingLogger();
    const ext = new AppExtensions({ dir, logger });
    await ext.load();
    const report = reportOf(ext);
    expect(report.extensions.map((e) => e.name)).toEqual(["klass", "obj", "made"]);
    expect(report.extensions.find((e) => e.name === "klass")).toMatchObject({ priority: 7, points: ["BEFORE_LLM_CALL"], source: { kind: "module", file: path.join(dir, "b-class.mjs") } });
    expect((ext.manager.get("made") as unknown as { hasLogger: boolean }).hasLogger).toBe(true);
    expect(report.failed.map((f) => path.basename(f.file))).toEqual(["d-throws.mjs", "e-not-extension.mjs", "f-syntax.js"]);
    expect(report.failed[0].message).toContain("boom at import");
    expect(logger.records.some((r) => r.level === "error" && String(r.message).includes(path.join(dir, "d-throws.mjs")))).toBe(true);
  });

  it("a module may not take a built-in's name (logging, secret_masking, …), even with that built-in off: it is reported and skipped", async () => {
    const dir = folder({
      "extensions.yml": "builtins: { secret_masking: {} }\n",
      "my-logging.mjs": `export default { name: "logging", onLoopComplete() {} };`,
      "my-masking.mjs": `export default { name: "secret_masking", onBeforeResponseSend() { return "mine"; } };`,
      "audit.mjs": `export default { name: "audit", onLoopComplete() {} };`,
    });
    const ext = new AppExtensions({ dir, logger: recordingLogger() });
    await ext.load();
    const report = reportOf(ext);
    expect(report.extensions.map((e) => [e.name, e.source.kind])).toEqual([["audit", "module"], ["secret_masking", "builtin"]]);
    expect(report.failed).toEqual([
      { file: path.join(dir, "my-logging.mjs"), message: "the name logging is reserved for the built-in; give the module another name" },
      { file: path.join(dir, "my-masking.mjs"), message: "the name secret_masking is reserved for the built-in; give the module another name" },
    ]);
  });

  it("the report names the folder the extensions come from (MODEX_EXTENSIONS_DIR), where the page tells a person to add one; none without a folder", () => {
    const dir = folder({});
    expect(reportOf(new AppExtensions({ dir, logger: recordingLogger() })).dir).toBe(dir);
    expect(reportOf(new AppExtensions({ logger: recordingLogger() })).dir).toBeNull();
  });

  it("registers the built-ins extensions.yml configures; a bad extensions.yml is reported and none are", async () => {
    const good = new AppExtensions({ dir: folder({ "extensions.yml": "builtins:\n  secret_masking: {}\n  logging: {}\n  token_budget: { per_turn: 10 }\n  approval_policy: { rules: [] }\n" }), logger: recordingLogger() });
    expect(reportOf(good).extensions.map((e) => e.name)).toEqual(["logging", "token_budget", "approval_policy", "secret_masking"]);
    const bad = new AppExtensions({ dir: folder({ "extensions.yml": "builtins:\n  secret_masker: {}\n" }), logger: recordingLogger() });
    expect(reportOf(bad).extensions).toEqual([]);
    expect(reportOf(bad).failed[0].file).toMatch(/extensions\.yml$/);
  });

  it("a built-in's section written at the top level (not under builtins:) is reported with where it goes", () => {
    const top = new AppExtensions({ dir: folder({ "extensions.yml": "logging: {}\ntoken_budget: { per_turn: 100 }\n" }), logger: recordingLogger() });
    expect(reportOf(top).extensions).toEqual([]);
    expect(reportOf(top).failed[0].message).toContain('Unrecognized keys: "logging", "token_budget" (built-ins go under builtins:, e.g. builtins: { logging: {} })');
    const other = new AppExtensions({ dir: folder({ "extensions.yml": "modulez: []\n" }), logger: recordingLogger() });
    expect(reportOf(other).failed[0].message).toContain('Unrecognized key: "modulez"');
    expect(reportOf(other).failed[0].message).not.toContain("builtins:");
  });

  it("an invalid regular expression in extensions.yml (a masking pattern, an approval rule's pattern) is reported with its path, as any config problem; it does not throw", () => {
    const masking = new AppExtensions({ dir: folder({ "extensions.yml": 'builtins:\n  secret_masking:\n    patterns: ["sk-[a-z"]\n' }), logger: recordingLogger() });
    expect(reportOf(masking).extensions).toEqual([]);
    expect(reportOf(masking).failed[0].message).toMatch(/not a valid regular expression: .*Unterminated character class/);
    expect(reportOf(masking).failed[0].message).toContain("at builtins.secret_masking.patterns[0]");
    const rule = 'builtins:\n  approval_policy:\n    rules:\n      - { tool: run_graph, args: { name: { pattern: "(" } }, decision: approve }\n';
    const approval = new AppExtensions({ dir: folder({ "extensions.yml": rule }), logger: recordingLogger() });
    expect(reportOf(approval).failed[0].message).toMatch(/not a valid regular expression/);
    const valid = new AppExtensions({ dir: folder({ "extensions.yml": rule.replace('"("', '"review-.*"') }), logger: recordingLogger() });
    expect(reportOf(valid)).toMatchObject({ failed: [], extensions: [{ name: "approval_policy" }] });
  });

  it("the repository's config/extensions loads: the sample module and secret masking", async () => {
    const ext = new AppExtensions({ dir: CONFIG_DIR, logger: recordingLogger() });
    await ext.load();
    expect(reportOf(ext)).toMatchObject({ failed: [] });
    expect(reportOf(ext).extensions.map((e) => e.name).sort()).toEqual(["demo_secret_filter", "secret_masking"]);
  });

  it("the commented examples of config/extensions/extensions.yml work as written: the four built-ins, and the approval rule starts review-cycle without asking", async () => {
    // Uncomment the indented example lines (keys and list items), as a user enabling them would.
    const example = readFileSync(path.join(CONFIG_DIR, "extensions.yml"), "utf8")
      .split("\n")
      .map((line) => line.replace(/^(\s+)# ?(\s*(?:[a-z_]+:|- ).*)$/, "$1$2"))
      .join("\n");
    const script: Script = (req) => (req.messages.at(-1)?.role === "tool" ? { text: "started" } : { toolCalls: [{ name: "run_graph", args: { name: "review-cycle" } }] });
    const { t, extensions } = await appWith({ "extensions.yml": example }, script);
    await using _t = t;
    expect(reportOf(extensions).failed).toEqual([]);
    expect(reportOf(extensions).extensions.map((e) => e.name)).toEqual(["logging", "token_budget", "approval_policy", "secret_masking"]);
    const { events } = await chatTurn(t, "run the review");
    expect(events.some((e) => e.type === "approval_requested")).toBe(false);
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ name: "run_graph", isError: false });
  });

  it("a module an agent definition names (extensions:, relative to the folder) is loaded at start-up, before any run", async () => {
    const dir = folder({ "extensions.yml": "builtins: {}\n" });
    const elsewhere = folder({ "audit.mjs": `export default { name: "audit", onBeforeMessageProcess() {} };` });
    const extensions = new AppExtensions({ dir, logger: recordingLogger() });
    await using t = testServices("sqlite", {}, { extensions });
    await t.services.agents.save(`name: auditor\ndescription: audited\ninstructions: hi\nextensions: [${path.relative(dir, path.join(elsewhere, "audit.mjs"))}]\n`);
    expect(extensions.manager.get("audit")).toBeUndefined();
    await startAppServices(t.services, {});
    expect(reportOf(extensions)).toMatchObject({ failed: [], extensions: [{ name: "audit", points: ["BEFORE_MESSAGE_PROCESS"], source: { kind: "module", file: path.join(elsewhere, "audit.mjs") } }] });
  });

  it("a toggle is committed before it returns and applies again after a restart", async () => {
    using temp = new TempDatabase();
    const dir = folder({ "extensions.yml": "builtins:\n  logging: {}\n" });
    const first = new AppExtensions({ dir, settings: new SqliteExtensionSettingsStore(temp.db), logger: recordingLogger() });
    expect(await first.setEnabled("logging", false)).toMatchObject({ name: "logging", enabled: false });
    const other = new Database(temp.file, { readonly: true });
    expect(other.prepare("SELECT name, enabled FROM extension_settings").all()).toEqual([{ name: "logging", enabled: 0 }]);
    other.close();
    const restarted = new AppExtensions({ dir, settings: new SqliteExtensionSettingsStore(temp.reopen()), logger: recordingLogger() });
    expect(reportOf(restarted).extensions[0]).toMatchObject({ name: "logging", enabled: false });
    await expect(restarted.setEnabled("ghost", true)).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
  });
});

describe("extensions through the app path (the chat's agent, built by the assembly)", () => {
  it("an extension that never answers is skipped after extensions.yml's call_timeout_ms: the turn ends with its reply, the call counted as failed", async () => {
    const files = {
      "extensions.yml": "builtins: {}\ncall_timeout_ms: 100\n",
      "hung.mjs": `export default { name: "hung", onBeforeResponseSend() { return new Promise(() => {}); } };`,
    };
    const { t, extensions } = await appWith(files, [{ text: "all done" }]);
    await using _t = t;
    expect(reportOf(extensions).failed).toEqual([]);
    const { done } = await chatTurn(t, "hello");
    expect(done?.content).toBe("all done");
    expect(reportOf(extensions).extensions.find((e) => e.name === "hung")).toMatchObject({ calls: 1, failures: 1 });
  });

  it("secret masking: the prompt, the streamed text and reasoning, the answer and the chat's event log never hold the secret; it counts", async () => {
    const reply = { reasoning: `the user gave ${SECRET} so`, text: `the key is ${SECRET} as you said` };
    const { t, provider, extensions } = await appWith({ "extensions.yml": "builtins:\n  secret_masking: { hold_back: 16 }\n" }, [reply]);
    await using _t = t;
    const { streamed, done, events } = await chatTurn(t, `remember ${SECRET}`);
    expect(streamed).toBe("the key is [masked] as you said");
    expect(done?.content).toBe("the key is [masked] as you said");
    expect(JSON.stringify(provider.requests[0].messages)).not.toContain(SECRET);
    expect(events.filter((e) => e.type === "reasoning_delta").map((e) => (e.type === "reasoning_delta" ? e.text : "")).join("")).toBe("the user gave [masked] so");
    expect(JSON.stringify(events.filter((e) => e.type !== "user_message"))).not.toContain(SECRET);
    expect(reportOf(extensions).extensions[0].counters).toEqual({ masked: 3 });
  });

  it("secret masking: a secret a tool returns (a spec's description, through list_graphs) reaches neither the model nor the chat's event log", async () => {
    const script: Script = [{ toolCalls: [{ name: "list_graphs", args: {} }] }, { text: "Listed." }];
    const { t, provider, extensions } = await appWith({ "extensions.yml": "builtins:\n  secret_masking: {}\n" }, script);
    await using _t = t;
    const counter = readFileSync(path.resolve(import.meta.dirname, "../../../config/graphs/counter-loop.yml"), "utf8");
    await t.services.specs.save(counter.replace("name: counter-loop", "name: leaky").replace(/^description: .*$/m, `description: uses ${SECRET}`));
    const { events } = await chatTurn(t, "which graphs are there?");
    const result = events.find((e) => e.type === "tool_result");
    expect(result?.type === "tool_result" && result.content).toContain("uses [masked]");
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(provider.requests[1].messages)).not.toContain(SECRET);
    expect(reportOf(extensions).extensions[0].counters).toEqual({ masked: 1 });
  });

  it("resetStatistics zeroes the calls, time and a built-in's own counters (masked), and answers the report as it now is", async () => {
    const { t, extensions } = await appWith({ "extensions.yml": "builtins:\n  secret_masking: {}\n" }, [{ text: `key ${SECRET}` }]);
    await using _t = t;
    await chatTurn(t, "show me");
    expect(reportOf(extensions).extensions[0]).toMatchObject({ name: "secret_masking", counters: { masked: 1 } });
    expect(reportOf(extensions).extensions[0].calls).toBeGreaterThan(0);
    const report = (extensions.resetStatistics() as ExtensionsReport);
    expect(report.extensions[0]).toMatchObject({ name: "secret_masking", calls: 0, failures: 0, vetoes: 0, timeMs: 0, counters: { masked: 0 } });
  });

  it("secret masking's patterns and replacement come from extensions.yml (the defaults then no longer apply)", async () => {
    const yml = `builtins:\n  secret_masking:\n    patterns: ["ACME-[0-9]{4}"]\n    replacement: "<hidden>"\n`;
    const { t, extensions } = await appWith({ "extensions.yml": yml }, [{ text: `ticket ACME-1234 and key ${SECRET}` }]);
    await using _t = t;
    const { streamed } = await chatTurn(t, "show me");
    expect(streamed).toBe(`ticket <hidden> and key ${SECRET}`);
    expect(reportOf(extensions).extensions[0].counters).toEqual({ masked: 1 });
  });

  it("ctx.message is the person's message at every point, not a reminder the agent's hooks add (the assistant's current time)", async () => {
    const seen = "__modexAuditSeenMessages";
    const { t } = await appWith(
      { "seer.mjs": `export default { name: "seer", onBeforeMessageProcess(ctx) { (globalThis.${seen} ??= []).push(ctx.message); }, onBeforeLlmCall(ctx) { globalThis.${seen}.push(ctx.message); } };` },
      [{ text: "It is late." }],
    );
    expect(t.services.agents.find("assistant")?.definition.hooks.current_time).toBe(true);
    const { done } = await chatTurn(t, "what time is it?");
    expect(done?.content).toBe("It is late.");
    expect((globalThis as Record<string, unknown>)[seen]).toEqual(["what time is it?", "what time is it?"]);
  });

  it("TRANSFORM and COLLECT: a module rewrites streamed text and the system prompt; its statistics count calls and time", async () => {
    const mod = `export default {
      name: "upper", seen: [],
      onDuringLlmStreaming(ctx) { return ctx.get("chunk", "").toUpperCase(); },
      onSystemPromptReady(ctx) { return ctx.get("systemPrompt") + " Be brief."; },
      onBeforeMessageProcess(ctx) { this.seen.push(ctx.get("message")); },
    };`;
    const { t, provider, extensions } = await appWith({ "upper.mjs": mod }, [{ text: "hello there" }]);
    await using _t = t;
    const { streamed } = await chatTurn(t, "hi");
    expect(streamed).toBe("HELLO THERE");
    expect(provider.requests[0].messages[0].content).toMatch(/Be brief\.$/);
    expect((extensions.manager.get("upper") as unknown as { seen: string[] }).seen).toEqual(["hi"]);
    const stats = reportOf(extensions).extensions[0];
    expect(stats.calls).toBeGreaterThan(3);
    expect(stats.timeMs).toBeGreaterThan(0);
  });

  it("CANCELLABLE: the token budget vetoes the model call past the turn's budget; the turn ends with a clear policy result", async () => {
    const script: Script = (_req, i) => (i === 0 ? { text: "Listing.", toolCalls: [{ name: "list_graphs", args: {} }], usage: { inputTokens: 80, outputTokens: 40 } } : { text: "done" });
    const { t, provider, extensions } = await appWith({ "extensions.yml": "builtins:\n  token_budget: { per_turn: 100 }\n" }, script);
    await using _t = t;
    const { done } = await chatTurn(t, "list them");
    expect(provider.requests).toHaveLength(1);
    expect(done).toMatchObject({ stopReason: "policy_violation" });
    expect(done?.content).toContain("token budget exceeded: this turn used 120 of its 100 tokens");
    expect(reportOf(extensions).extensions[0]).toMatchObject({ name: "token_budget", vetoes: 1, counters: { vetoed: 1 } });
  });

  it("UNTIL_HANDLED: the approval policy runs run_graph for a named spec without asking, and asks for another", async () => {
    const yml = "builtins:\n  approval_policy:\n    rules:\n      - tool: run_graph\n        args: { name: { oneOf: [counter-loop] } }\n        decision: approve\n";
    const script: Script = (req) => {
      const last = req.messages.at(-1);
      if (last?.role === "tool") return { text: "started" };
      const asked = req.messages.some((m) => m.role === "user" && m.content.includes("run the other"));
      const name = asked ? "map-reduce" : "counter-loop";
      return { toolCalls: [{ name: "run_graph", args: { name } }] };
    };
    const { t, extensions } = await appWith({ "extensions.yml": yml }, script);
    await using _t = t;
    const approved = await chatTurn(t, "run it");
    expect(approved.events.some((e) => e.type === "approval_requested")).toBe(false);
    expect(approved.events.find((e) => e.type === "tool_result")).toMatchObject({ name: "run_graph", isError: false });
    const { sessionId } = await t.services.chat.send({ message: "run the other" });
    await expect.poll(async () => (await t.services.chat.events(sessionId)).some((e) => e.type === "approval_requested")).toBe(true);
    expect(reportOf(extensions).extensions[0].counters).toEqual({ approved: 1 });
    await t.services.chat.cancel(sessionId);
  });

  it("a broken extension (throws at every point, at import of nothing) cannot stop a turn: the answer arrives and its failures are counted", async () => {
    const points = ["onBeforeMessageProcess", "onFullPromptReady", "onBeforeLlmCall", "onDuringLlmStreaming", "onAfterLlmResponse", "onBeforeToolParse", "onBeforeToolExecute", "onAfterToolExecute", "onLoopComplete", "onBeforeResponseSend"];
    const mod = `const boom = () => { throw new Error("broken on purpose"); };\nexport default { name: "broken", ${points.map((p) => `${p}: boom`).join(", ")} };`;
    const script: Script = [{ text: "Listing.", toolCalls: [{ name: "list_graphs", args: {} }] }, { text: "here they are" }];
    const { t, extensions } = await appWith({ "broken.mjs": mod }, script);
    await using _t = t;
    const { done, streamed } = await chatTurn(t, "list");
    expect(done).toMatchObject({ stopReason: "completed", content: "here they are" });
    expect(streamed).toBe("Listing.here they are");
    const stats = reportOf(extensions).extensions[0];
    expect(stats.failures).toBe(stats.calls);
    expect(stats.failures).toBeGreaterThan(5);
    // Why, not only how often: the latest failure, at the turn's last point that threw.
    expect(stats.lastError).toMatchObject({ point: "BEFORE_RESPONSE_SEND", message: "Error: broken on purpose" });
  });

  it("TOOL_ERROR and REPAIRABLE_ERROR: when a chat tool throws (instance_status of an unknown run), the module's repair and hint are what the model reads", async () => {
    const mod = `export default {
      name: "repair",
      onToolError(ctx) { return "No such run: ask the user for the id " + JSON.parse(ctx.get("toolCall").arguments).instanceId + " again."; },
      onRepairableError() { return "Hint: list_graphs shows what can run."; },
    };`;
    const script: Script = [{ toolCalls: [{ name: "instance_status", args: { instanceId: "no-such-run" } }] }, { text: "sorry" }];
    const { t, provider, extensions } = await appWith({ "repair.mjs": mod }, script);
    await using _t = t;
    const { done } = await chatTurn(t, "how is my run?");
    expect(done).toMatchObject({ stopReason: "completed", content: "sorry" });
    expect(provider.requests[1].messages.at(-1)).toMatchObject({ role: "tool", content: "No such run: ask the user for the id no-such-run again.\nHint: list_graphs shows what can run." });
    expect(reportOf(extensions).extensions[0]).toMatchObject({ name: "repair", calls: 2, failures: 0 });
  });

  it("logging: a line for the message, each model call with its tokens, each tool call and error, the turn's end with its duration, the chat opened and closed", async () => {
    const logger = recordingLogger();
    const extensions = new AppExtensions({ dir: folder({ "extensions.yml": "builtins:\n  logging: {}\n" }), logger });
    const script: Script = [
      { text: "Looking.", toolCalls: [{ name: "instance_status", args: { instanceId: "no-such-run" } }], usage: { inputTokens: 12, outputTokens: 3 } },
      { text: "It does not exist.", usage: { inputTokens: 20, outputTokens: 5 } },
    ];
    await using t = testServices("sqlite", { chatProvider: new ScriptedProvider(script) }, { extensions });
    const { sessionId, done } = await chatTurn(t, "how is my run?");
    expect(done?.stopReason).toBe("completed");
    await t.services.chat.remove(sessionId);
    const lines = () => logger.records.filter((r) => r.message.startsWith("[ext:logging]")).map((r) => `${r.level} ${r.message}`);
    await expect.poll(() => lines().some((l) => l.includes("ended after 1 messages"))).toBe(true);
    // The chat's creation is logged without waiting (SESSION_CREATE is not awaited): anywhere before its end.
    expect(lines().filter((l) => /^info \[ext:logging\] session \d+ created$/.test(l))).toHaveLength(1);
    expect(lines().filter((l) => !l.endsWith(" created"))).toEqual([
      expect.stringMatching(/^info .* message \(14 chars\)$/),
      expect.stringMatching(/model answered: 12 in, 3 out tokens$/),
      expect.stringMatching(/tool instance_status$/),
      expect.stringMatching(/^warn .* tool instance_status threw: .*no-such-run/),
      expect.stringMatching(/model answered: 20 in, 5 out tokens$/),
      expect.stringMatching(/done in \d+ ms$/),
      expect.stringMatching(/^info \[ext:logging\] session \d+ ended after 1 messages$/),
    ]);
  });

  it("a turn a new message interrupts (path B: its signal aborts) is logged stopped, not failed, and token_budget lets go of its total", async () => {
    const logger = recordingLogger();
    const extensions = new AppExtensions({ dir: folder({ "extensions.yml": "builtins:\n  logging: {}\n  token_budget: { per_turn: 1000 }\n" }), logger });
    const provider = new CountedThenStalling();
    await using t = testServices("sqlite", { chatProvider: provider }, { extensions });
    await extensions.load();
    const chat = t.services.chat;
    const sent = await chat.send({ message: "how is my run?" });
    await expect.poll(async () => (await chat.events(sent.sessionId)).some((e) => e.turnId === sent.turnId && e.type === "text_delta"), { timeout: 5_000 }).toBe(true);
    expect(await chat.send({ sessionId: sent.sessionId, message: "never mind", busyInput: "INTERRUPT" })).toMatchObject({ handled: "interrupted" });
    await chat.idle(sent.sessionId);
    expect(provider.aborted).toBe(true);
    const turnLines = (turnId: string) => logger.records.map((r) => `${r.level} ${r.message}`).filter((l) => l.includes("[ext:logging]") && (l.includes(turnId) || l.includes("turn failed")));
    expect(turnLines(sent.turnId!)).toEqual([expect.stringMatching(/message \(14 chars\)$/), expect.stringMatching(/^info .* stopped in \d+ ms$/)]);
    expect((extensions.manager.get("token_budget") as TokenBudgetExtension).tracked().turns).toBe(0);
  });

  it("logging writes its lines to the server's stdout when the app gives no logger (the server's default)", async () => {
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
    try {
      const extensions = new AppExtensions({ dir: folder({ "extensions.yml": "builtins:\n  logging: {}\n" }) });
      await using t = testServices("sqlite", { chatProvider: new ScriptedProvider([{ text: "Hi.", usage: { inputTokens: 7, outputTokens: 2 } }]) }, { extensions });
      expect((await chatTurn(t, "hello")).done?.stopReason).toBe("completed");
      await expect.poll(() => printed.filter((l) => l.startsWith("[agent] [ext:logging]"))).toEqual(
        expect.arrayContaining([expect.stringMatching(/message \(5 chars\)$/), expect.stringMatching(/model answered: 7 in, 2 out tokens$/), expect.stringMatching(/done in \d+ ms$/)]),
      );
    } finally {
      log.mockRestore();
    }
  });

  it("SESSION_CREATE and SESSION_DESTROY fire as chats are opened (by a first message or empty) and deleted", async () => {
    const mod = `export default {
      name: "sessions", seen: [],
      onSessionCreate(ctx) { this.seen.push(["create", ctx.get("sessionId"), ctx.get("context").agent, ctx.agentId]); },
      onSessionDestroy(ctx) { this.seen.push(["destroy", ctx.get("sessionId"), ctx.get("messageCount"), ctx.agentId]); },
      onBeforeLlmCall(ctx) { this.seen.push(["model", ctx.agentId]); },
    };`;
    const { t, extensions } = await appWith({ "sessions.mjs": mod }, () => ({ text: "ok" }));
    await using _t = t;
    const first = await t.services.chat.send({ message: "hi" });
    await t.services.chat.idle(first.sessionId);
    await t.services.chat.send({ sessionId: first.sessionId, message: "again" });
    await t.services.chat.idle(first.sessionId);
    const empty = await t.services.chat.create({ agent: "reviewer" });
    await t.services.chat.remove(first.sessionId);
    const seen = (extensions.manager.get("sessions") as unknown as { seen: unknown[][] }).seen;
    await expect.poll(() => seen.length).toBe(5);
    // ctx.agentId: the chat's agent, at its sessions' points and in its turns.
    expect(seen.filter((s) => s[0] === "model")).toEqual([["model", "assistant"], ["model", "assistant"]]);
    expect(seen.filter((s) => s[0] !== "model")).toEqual([
      ["create", first.sessionId, "assistant", "assistant"],
      ["create", empty.sessionId, "reviewer", "reviewer"],
      ["destroy", first.sessionId, 2, "assistant"],
    ]);
  });
});
