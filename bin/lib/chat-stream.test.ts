import { describe, expect, it } from "vitest";
// @ts-expect-error chat-stream.mjs has no type declarations (the CLI's own modules are plain JavaScript)
import { renderChatEvent } from "./chat-stream.mjs";

describe("renderChatEvent", () => {
  it("prints where earlier messages were summarized, with the counts and the summary's start", () => {
    let out = "";
    renderChatEvent({ type: "context_summarized", summary: "The user is Ada.\nShe asked twice.", mode: "consolidated", prunedMessages: 14, coveredMessages: 14, tokensBefore: 2100, tokensAfter: 600 }, (t: string) => (out += t));
    expect(out).toBe("\n[earlier messages summarized — 14 messages, ~2100 → ~600 tokens] The user is Ada. She asked twice.\n");
  });

  it("prints a turn's tokens, an estimate as ~N (estimated)", () => {
    let out = "";
    renderChatEvent({ type: "turn_completed", stopReason: "completed", content: "ok", tokens: 15, error: null }, (t: string) => (out += t));
    renderChatEvent({ type: "turn_completed", stopReason: "cancelled", content: "", tokens: 42, estimated: true, error: null }, (t: string) => (out += t));
    expect(out).toBe("\n[completed · 15 tokens]\n\n[cancelled · ~42 tokens (estimated)]\n");
  });
});
