import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { z } from "zod";
import { HookRunner } from "@/server/agent/hook/hook-runner";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { ReactAgent } from "@/server/agent/react/react-agent";
import { createSpanHooks } from "@/server/agent/trace/create-span-hooks";
import { SpanRecordSchema, type SpanRecord, type SpanSink, type TurnRootIndex } from "@/server/agent/trace/span-record";
import { defineTool } from "@/server/agent/tools/tool";
import type { Awaitable } from "@/server/graph/awaitable";
import { newSnowflake } from "@/server/graph/ids";

/** How spans are read back: by trace, a session's latest, one turn's (ChatStore.spans), turns' roots. */
export interface SpanReads extends TurnRootIndex {
  trace(traceId: string): Awaitable<SpanRecord[]>;
  recentForSession(sessionId: string, limit?: number): Awaitable<SpanRecord[]>;
  turn(sessionId: string, turnId: string): Awaitable<SpanRecord[]>;
}

export interface SpanSinkBackend {
  sink(): SpanSink;
  /** Reads through new connections (another process, a restart), or the same memory. */
  reader(): SpanReads;
}

const echo = defineTool({ name: "echo", description: "Echo", args: z.object({ text: z.string() }), execute: ({ text }) => text });

const span = (sessionId: string, turnId: string, name: string, startTime: number, patch: Partial<SpanRecord> = {}): SpanRecord => ({
  traceId: randomBytes(16).toString("hex"),
  spanId: randomBytes(8).toString("hex"),
  name,
  kind: "internal",
  startTime,
  endTime: startTime + 5,
  attributes: { "gen_ai.operation.name": "chat", tokens: 3, ok: true, names: ["a", "b"], sizes: [1, 2] },
  status: { code: "ok" },
  sessionId,
  turnId,
  ...patch,
});

/** Finished spans are kept as written and read back in start order (ties: the order they were written). */
export function spanSinkTests(backend: SpanSinkBackend): void {
  it("stores the spans of a real ReAct turn (full tier), readable by trace, by session and by turn", async () => {
    const sessionId = `s-${newSnowflake()}`;
    const runner = new HookRunner();
    const sink = backend.sink();
    const written: Promise<void>[] = [];
    const watched: SpanSink = { write: (s) => void written.push(Promise.resolve(sink.write(s))) };
    for (const spec of createSpanHooks({ tier: "full", sink: watched, providerName: "scripted", model: "m" })) runner.register(spec);
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "hi" } }] }, { text: "done" }]);
    await new ReactAgent({ provider, tools: [echo], hooks: runner }).run("say hi", { sessionId, turnId: "t1" });
    await Promise.all(written);

    const reads = backend.reader();
    const recent = await reads.recentForSession(sessionId);
    const root = recent.find((s) => s.parentSpanId === undefined)!;
    expect(root.name).toBe("invoke_agent react");
    const trace = await reads.trace(root.traceId);
    expect(trace.map((s) => s.name)).toEqual(
      expect.arrayContaining(["invoke_agent react", "agent_start react", "chat m", "execute_tool echo", "iteration 1", "iteration 2"]),
    );
    expect(trace).toHaveLength(recent.length);
    for (const s of trace) expect(SpanRecordSchema.parse(s)).toEqual(s);
    expect(await reads.turn(sessionId, "t1")).toEqual(trace);
    expect(await reads.turn(sessionId, "t2")).toEqual([]);
  });

  it("orders by start time, ties in the order written; a span written again replaces the first; the latest of a session newest first", async () => {
    const sessionId = `s-${newSnowflake()}`;
    const sink = backend.sink();
    const later = span(sessionId, "t1", "later", 2_000);
    const first = span(sessionId, "t1", "first", 1_000, { parentSpanId: later.spanId, status: { code: "error", message: "boom" }, kind: "client" });
    const tie = span(sessionId, "t1", "tie", 1_000);
    for (const s of [later, first, tie]) await sink.write(s);
    await sink.write({ ...later, name: "later again" });
    const reads = backend.reader();
    expect(await reads.turn(sessionId, "t1")).toEqual([first, tie, { ...later, name: "later again" }]);
    expect((await reads.recentForSession(sessionId, 2)).map((s) => s.name)).toEqual(["later again", "tie"]);
  });

  it("lists turns' root spans newest first, a page at a time (ties by span id), of chats, of nodes, or failed ones", async () => {
    // Later than anything else the suite writes: these are the newest roots of the database.
    const at = 4_102_444_800_000;
    const chat = `c${newSnowflake()}`;
    const node = `${newSnowflake()}:coder`;
    const sink = backend.sink();
    const roots = [
      span(chat, "t1", "invoke_agent assistant", at + 1),
      span(chat, "t2", "invoke_agent assistant", at + 2, { status: { code: "error", message: "model down" } }),
      span(chat, "t3", "invoke_agent assistant", at + 3),
      span(node, "n1", "invoke_agent coder", at + 4),
      span(node, "n2", "invoke_agent coder", at + 5, { spanId: "00000000000000aa" }),
      span(node, "n3", "invoke_agent coder", at + 5, { spanId: "00000000000000bb" }),
    ];
    const child = span(node, "n3", "chat m", at + 6, { parentSpanId: roots[5].spanId });
    for (const r of [...roots, child]) await sink.write(r);
    const reads = backend.reader();
    const all = { source: "all", errorsOnly: false } as const;
    const turns = (spans: SpanRecord[]) => spans.map((x) => x.turnId);

    const first = await reads.turnRoots(null, 3, all);
    expect(turns(first)).toEqual(["n3", "n2", "n1"]);
    const last = first.at(-1)!;
    expect(turns(await reads.turnRoots({ startTime: last.startTime, spanId: last.spanId }, 3, all))).toEqual(["t3", "t2", "t1"]);
    // A page that ends between two roots of one millisecond goes on with the other.
    expect(turns(await reads.turnRoots({ startTime: at + 5, spanId: "00000000000000bb" }, 1, all))).toEqual(["n2"]);
    expect(turns(await reads.turnRoots(null, 2, { source: "chat", errorsOnly: false }))).toEqual(["t3", "t2"]);
    expect(turns(await reads.turnRoots(null, 3, { source: "node", errorsOnly: false }))).toEqual(["n3", "n2", "n1"]);
    const failed = await reads.turnRoots(null, 1, { source: "all", errorsOnly: true });
    expect(failed).toEqual([roots[1]]);
  });

  it("keeps the turns tagged as training data apart, and a person's choice over the tag, for another process too", async () => {
    const sink = backend.sink();
    const at = Date.now() + 10_000_000; // after every other test's roots
    const chat = newSnowflake();
    const tagged = (relevant: boolean | undefined): SpanRecord["attributes"] => (relevant === undefined ? {} : { "gen_ai.training.relevant": relevant });
    const roots = [
      span(chat, "x1", "invoke_agent assistant", at + 1, { attributes: tagged(true) }),
      span(chat, "x2", "invoke_agent assistant", at + 2, { attributes: tagged(false) }),
      span(chat, "x3", "invoke_agent assistant", at + 3, { attributes: tagged(undefined) }),
      span(chat, "x4", "invoke_agent assistant", at + 4, { attributes: tagged(true), status: { code: "error", message: "x" } }),
    ];
    for (const r of roots) await sink.write(r);
    const reads = backend.reader();
    const training = async () => (await reads.turnRoots(null, 4, { source: "chat", errorsOnly: false, trainingOnly: true })).map((x) => x.turnId);
    expect(await training()).toEqual(["x4", "x1"]);
    const chosen = await reads.chooseTraining(roots[1].spanId, true);
    expect(chosen?.attributes).toMatchObject({ "gen_ai.training.relevant": true, "modex.training.chosen": true });
    await reads.chooseTraining(roots[0].spanId, false);
    expect(await reads.chooseTraining("0123456789abcdef", true)).toBeNull();
    // Only a turn's root span takes a choice.
    const child = span(chat, "x3", "chat m", at + 5, { parentSpanId: roots[2].spanId });
    await sink.write(child);
    expect(await reads.chooseTraining(child.spanId, true)).toBeNull();
    const again = backend.reader();
    expect((await again.turnRoots(null, 4, { source: "chat", errorsOnly: false, trainingOnly: true })).map((x) => x.turnId)).toEqual(["x4", "x2"]);
    const [x1] = (await again.trace(roots[0].traceId)).filter((x) => x.turnId === "x1");
    expect(x1.attributes).toMatchObject({ "gen_ai.training.relevant": false, "modex.training.chosen": true });
  });
}
