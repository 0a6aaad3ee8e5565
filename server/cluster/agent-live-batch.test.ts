import { describe, expect, it } from "vitest";
import type { AgentNodeDelta } from "@/server/agent/graph-node/agent-node";
import type { LiveDelta } from "@/server/services/agents/agent-runs";
import { appendDelta, packBatches, type AgentLiveBatch } from "./agent-live-batch";

const call = { instanceId: "i1", node: "coder", invocationId: "v1", turnId: "t1", attempt: 1, iteration: 1 };
const text = (t: string, over: Partial<AgentNodeDelta> = {}): AgentNodeDelta => ({ ...call, channel: "text", text: t, ...over });
const end = (over: Partial<AgentNodeDelta> = {}): AgentNodeDelta => ({ ...call, channel: "end", text: "", ...over });

describe("appendDelta", () => {
  it("merges a call's consecutive pieces of one channel, and nothing else", () => {
    const buffer: AgentNodeDelta[] = [];
    for (const d of [text("a"), text("b"), text("c", { iteration: 2 }), text("r", { channel: "reasoning", iteration: 2 }), end({ iteration: 2 }), end({ iteration: 2 }), text("x", { instanceId: "i2" })]) appendDelta(buffer, d);
    expect(buffer.map((d) => [d.channel, d.iteration, d.instanceId, d.text])).toEqual([
      ["text", 1, "i1", "ab"],
      ["text", 2, "i1", "c"],
      ["reasoning", 2, "i1", "r"],
      ["end", 2, "i1", ""],
      ["end", 2, "i1", ""],
      ["text", 1, "i2", "x"],
    ]);
  });
});

describe("appendDelta with whole texts", () => {
  it("never appends a whole text to a piece before it; a piece after one continues it (still whole)", () => {
    const buffer: LiveDelta[] = [];
    for (const d of [text("a"), { ...text("abc"), whole: true as const }, text("d")]) appendDelta(buffer, d);
    expect(buffer).toEqual([text("a"), { ...text("abcd"), whole: true }]);
  });
});

describe("packBatches", () => {
  const parse = (payloads: string[]) => payloads.map((p) => JSON.parse(p) as AgentLiveBatch);
  const bytes = (s: string) => Buffer.byteLength(s, "utf8");

  it("puts deltas that fit in one payload, numbered from seq", () => {
    const payloads = packBatches({ from: "s1", seq: 7, deltas: [text("hello "), end()] });
    expect(parse(payloads)).toEqual([{ from: "s1", seq: 7, deltas: [text("hello "), end()] }]);
  });

  it("splits a text too long for one payload over several, each under the limit in UTF-8 bytes, in order, the end last", () => {
    const long = "é".repeat(5_000) + "😀".repeat(3_000) + "\n\"quoted\"".repeat(500);
    const payloads = packBatches({ from: "s1", seq: 0, deltas: [text("start "), text(long, { iteration: 2 }), end({ iteration: 2 })], maxBytes: 7_800 });
    expect(payloads.length).toBeGreaterThan(4);
    for (const p of payloads) expect(bytes(p)).toBeLessThan(7_800);
    const batches = parse(payloads);
    expect(batches.map((b) => b.seq)).toEqual(batches.map((_, i) => i));
    const deltas = batches.flatMap((b) => b.deltas);
    expect(deltas[0]).toEqual(text("start "));
    expect(deltas.slice(1, -1).map((d) => d.text).join("")).toBe(long);
    expect(deltas.at(-1)).toEqual(end({ iteration: 2 }));
  });

  it("of a whole text too long for one payload, only the first piece is whole: the others continue it", () => {
    const long = "é".repeat(9_000);
    const deltas = parse(packBatches({ from: "s1", seq: 0, deltas: [{ ...text(long), whole: true }] })).flatMap((b) => b.deltas);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.whole ?? false)).toEqual(deltas.map((_, i) => i === 0));
    expect(deltas.map((d) => d.text).join("")).toBe(long);
  });

  it("makes nothing of nothing", () => {
    expect(packBatches({ from: "s1", seq: 0, deltas: [] })).toEqual([]);
  });
});
