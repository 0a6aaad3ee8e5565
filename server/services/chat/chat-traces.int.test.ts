import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { trace } from "@opentelemetry/api";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { installOtlpExport } from "../otlp-export";
import { testServices } from "../testing/test-services";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { untilFound } from "./testing/chat-fixtures";

/** Streams a word, then waits until its signal aborts (a model mid-answer), and stops as an aborted stream does. */
class StallingProvider extends LlmProvider {
  readonly name = "stalling";
  async *stream(_request: unknown, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    yield { type: "text_delta", text: "thinking… " };
    await new Promise<void>((resolve) => options.signal.addEventListener("abort", () => resolve(), { once: true }));
    throw new DOMException("aborted", "AbortError");
  }
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => resolve(body));
  });

/** A local OTLP/HTTP receiver: the JSON export requests it got, flattened to their spans. */
function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const server = createServer(async (req, res) => {
    const body = JSON.parse(await read(req)) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  return { spans, server };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v ? (v.stringValue ?? v.intValue ?? v.boolValue) : undefined;
};

describe("a chat turn's trace", () => {
  const receiver = otlpReceiver();
  afterAll(() => {
    trace.disable();
    receiver.server.close();
  });

  it("is stored (agent → model call / tool call, with tokens) and exported over OTLP/HTTP with GenAI attributes and parent links", async () => {
    await new Promise<void>((r) => receiver.server.listen(0, "127.0.0.1", r));
    const { port } = receiver.server.address() as AddressInfo;
    const exporter = installOtlpExport({ endpoint: `http://127.0.0.1:${port}`, serviceName: "modex-chat-test" });
    const provider = new ScriptedProvider([
      { text: "Planning. ", toolCalls: [{ name: "todo_write", args: { todos: [{ content: "answer", status: "completed" }] } }], usage: { inputTokens: 40, outputTokens: 9 } },
      { text: "Done.", usage: { inputTokens: 60, outputTokens: 3 } },
    ]);
    await using t = testServices("sqlite", { chatProvider: provider });
    const { sessionId, turnId } = await t.services.chat.send({ message: "plan and answer" });
    await t.services.chat.idle(sessionId);
    await exporter.forceFlush();

    const done = (await t.services.chat.events(sessionId)).at(-1);
    expect(done).toMatchObject({ type: "turn_completed", stopReason: "completed", tokens: 112, inputTokens: 100, outputTokens: 12 });

    // Stored: what the trace view reads.
    const stored = (await t.services.chat.trace(sessionId, turnId!)).spans;
    const byId = new Map(stored.map((s) => [s.spanId, s]));
    const root = stored.find((s) => s.name.startsWith("invoke_agent"))!;
    expect(root.parentSpanId).toBeUndefined();
    // The app's tier is "standard": model and tool calls hang off the agent's span (iterations are "full").
    const calls = stored.filter((s) => s.name.startsWith("chat "));
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(byId.get(c.parentSpanId!)).toBe(root);
    expect(calls.map((c) => c.attributes["gen_ai.usage.input_tokens"])).toEqual([40, 60]);
    const tool = stored.find((s) => s.name === "execute_tool todo_write")!;
    expect(byId.get(tool.parentSpanId!)).toBe(root);

    // Exported: the same spans, with their GenAI attributes and parent links.
    await expect.poll(() => receiver.spans.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(stored.length);
    const exported = new Map(receiver.spans.map((s) => [s.spanId, s]));
    const otlpRoot = receiver.spans.find((s) => s.name === root.name)!;
    expect(attr(otlpRoot, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attr(otlpRoot, "gen_ai.agent.name")).toBe("assistant");
    const otlpCalls = receiver.spans.filter((s) => s.name.startsWith("chat "));
    expect(otlpCalls).toHaveLength(2);
    for (const c of otlpCalls) {
      expect(attr(c, "gen_ai.operation.name")).toBe("chat");
      expect(c.parentSpanId).toBe(otlpRoot.spanId);
      expect(c.traceId).toBe(otlpRoot.traceId);
    }
    expect(otlpCalls.map((c) => Number(attr(c, "gen_ai.usage.output_tokens")))).toEqual([9, 3]);
    const otlpTool = receiver.spans.find((s) => s.name === "execute_tool todo_write")!;
    expect(attr(otlpTool, "gen_ai.tool.name")).toBe("todo_write");
    await exporter.shutdown();
  });

  it("goes with its chat: a deleted chat leaves no spans behind", async () => {
    const provider = new ScriptedProvider([{ text: "Hello." }, { text: "Again." }]);
    await using t = testServices("sqlite", { chatProvider: provider });
    const gone = await t.services.chat.send({ message: "hello" });
    const kept = await t.services.chat.send({ message: "hello too" });
    for (const { sessionId } of [gone, kept]) await t.services.chat.idle(sessionId);
    const reader = new Database(t.databaseFile!, { readonly: true });
    const spans = (sessionId: string) => (reader.prepare("SELECT count(*) AS n FROM agent_spans WHERE session_id = ?").get(sessionId) as { n: number }).n;
    expect(spans(gone.sessionId)).toBeGreaterThan(0);
    await t.services.chat.remove(gone.sessionId);
    expect(spans(gone.sessionId)).toBe(0);
    expect(spans(kept.sessionId)).toBeGreaterThan(0);
    reader.close();
  });

  it("goes with its chat also when it was deleted mid-turn: the aborted turn's spans are not written after the delete", async () => {
    await using t = testServices("sqlite", { chatProvider: new StallingProvider() });
    const { sessionId } = await t.services.chat.send({ message: "think hard" });
    await untilFound(async () => (await t.services.chat.events(sessionId)).find((e) => e.type === "text_delta"));
    await t.services.chat.remove(sessionId);
    await new Promise((r) => setTimeout(r, 200)); // whatever the aborted turn still wrote
    const reader = new Database(t.databaseFile!, { readonly: true });
    expect(reader.prepare("SELECT count(*) AS n FROM agent_spans WHERE session_id = ?").get(sessionId)).toEqual({ n: 0 });
    reader.close();
  });
});
