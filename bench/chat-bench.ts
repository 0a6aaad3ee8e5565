import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { LlmProvider, type LlmStreamOptions } from "../server/agent/llm/llm-provider";
import type { LlmRequest } from "../server/agent/llm/messages";
import type { LLMStreamEvent } from "../server/agent/llm/stream-events";
import { openGraphDatabase } from "../server/db/graph-database";
import { ChatService, type ChatEvent } from "../server/services/chat-service";
import { chatSseStream, endOfSentTurn } from "../server/services/chat/chat-sse";
import { InMemoryChatStore } from "../server/services/chat/chat-store";
import { SqliteChatStore } from "../server/services/chat/sqlite-chat-store";

/** A scripted model: `tokens` text deltas, one per macrotask, noting when it yields the first. */
class TimedProvider extends LlmProvider {
  readonly name = "timed";
  firstYieldAt = 0;
  constructor(private readonly tokens: number) {
    super();
  }
  async *stream(_request: LlmRequest, _options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    for (let i = 0; i < this.tokens; i++) {
      await new Promise((r) => setImmediate(r));
      if (i === 0) this.firstYieldAt = performance.now();
      yield { type: "text_delta", text: `t${i} ` };
    }
    yield { type: "usage_snapshot", usage: { inputTokens: 10, outputTokens: this.tokens, reasoningTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 } };
    yield { type: "finish", reason: "stop" };
  }
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

function tempDb() {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-chat-bench-"));
  const db = openGraphDatabase(path.join(dir, "modex.db"));
  return { db, dispose: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

/**
 * First token on the SSE stream: a real HTTP server answers POST-like sends with the turn's SSE stream
 * (the /api/chat/{id}/messages path: send, then chatSseStream), a client reads it over loopback; the
 * figure is the time from the provider yielding the first token to the client reading its frame.
 */
export async function measureFirstTokenLatency(turns = 200): Promise<{ p50: number; p95: number }> {
  const { db, dispose } = tempDb();
  const provider = new TimedProvider(20);
  const chat = new ChatService({ provider, model: "timed", store: new SqliteChatStore(db) });
  const { sessionId } = await chat.create();
  const server = createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const afterSeq = await chat.currentSeq(sessionId);
    const outcome = await chat.send({ sessionId, message: "go" });
    res.writeHead(200, { "content-type": "text/event-stream" });
    const stream = chatSseStream({ chat, sessionId, afterSeq, until: endOfSentTurn(outcome, "go"), signal: abort.signal });
    const reader = stream.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) res.write(r.value);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const samples: number[] = [];
  for (let i = 0; i < turns + 20; i++) {
    const response = await fetch(url, { method: "POST" });
    const decoder = new TextDecoder();
    let text = "";
    let firstAt = 0;
    const reader = response.body!.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
      if (!firstAt && text.includes("event: text_delta")) firstAt = performance.now();
    }
    if (i >= 20) samples.push(firstAt - provider.firstYieldAt);
  }
  server.close();
  dispose();
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

/**
 * A turn's persistence: the same 20-token turn with the SQLite store and with the in-memory one. The
 * difference is what storing its events, session row and conversation costs: in CPU time per turn (what
 * the process spent, robust on a shared machine) and in median wall time.
 */
export async function measureTurnPersistence(turns = 300): Promise<{ sqliteMs: number; memoryMs: number; persistenceMs: number; persistenceCpuMs: number }> {
  const run = async (chat: ChatService) => {
    const { sessionId } = await chat.create();
    const times: number[] = [];
    let cpu = 0;
    for (let i = 0; i < turns + 30; i++) {
      const t = performance.now();
      const c = process.cpuUsage();
      await chat.send({ sessionId, message: `turn ${i}` });
      await chat.idle(sessionId);
      const used = process.cpuUsage(c);
      if (i >= 30) {
        times.push(performance.now() - t);
        cpu += (used.user + used.system) / 1000;
      }
    }
    return { wall: percentile(times, 0.5), cpu: cpu / turns };
  };
  const { db, dispose } = tempDb();
  const sqlite = await run(new ChatService({ provider: new TimedProvider(20), model: "timed", store: new SqliteChatStore(db) }));
  dispose();
  const memory = await run(new ChatService({ provider: new TimedProvider(20), model: "timed", store: new InMemoryChatStore() }));
  return { sqliteMs: sqlite.wall, memoryMs: memory.wall, persistenceMs: sqlite.wall - memory.wall, persistenceCpuMs: sqlite.cpu - memory.cpu };
}

/** 100 chats streaming 200 tokens each at once: every subscriber sees every event once, in order. */
export async function measureConcurrentChats(sessions = 100, tokens = 200): Promise<{ lost: number; reordered: number; ms: number }> {
  const { db, dispose } = tempDb();
  const chat = new ChatService({ provider: new TimedProvider(tokens), model: "timed", store: new SqliteChatStore(db) });
  const ids: string[] = [];
  for (let i = 0; i < sessions; i++) ids.push((await chat.create()).sessionId);
  const seen = new Map<string, ChatEvent[]>(ids.map((id) => [id, []]));
  for (const id of ids) chat.subscribe(id, (e) => seen.get(id)!.push(e));
  const t = performance.now();
  await Promise.all(ids.map((id) => chat.send({ sessionId: id, message: "stream" })));
  await Promise.all(ids.map((id) => chat.idle(id)));
  await new Promise((r) => setImmediate(r));
  const ms = performance.now() - t;
  let lost = 0;
  let reordered = 0;
  for (const id of ids) {
    const got = seen.get(id)!;
    const stored = await chat.events(id);
    lost += stored.length - got.length + Math.abs(tokens - got.filter((e) => e.type === "text_delta").length);
    for (let i = 1; i < got.length; i++) if (got[i].seq <= got[i - 1].seq) reordered++;
  }
  dispose();
  return { lost, reordered, ms };
}
