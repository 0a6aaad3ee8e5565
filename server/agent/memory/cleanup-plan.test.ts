import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/messages";
import { planCut } from "./cleanup-plan";
import { estimateMessagesTokens } from "../llm/token-estimate";

const user = (content: string): ChatMessage => ({ role: "user", content });
const answer = (content: string): ChatMessage => ({ role: "assistant", content });
const call = (id: string): ChatMessage => ({ role: "assistant", content: "", toolCalls: [{ id, name: "lookup", arguments: "{}" }] });
const result = (id: string, content = "ok"): ChatMessage => ({ role: "tool", toolCallId: id, name: "lookup", content, isError: false });

describe("planCut", () => {
  it("keeps the latest keepRecent messages when they fit", () => {
    const messages = [user("a"), answer("b"), user("c"), answer("d"), user("e"), answer("f")];
    expect(planCut({ messages, covered: 0, fixedTokens: 0, budget: 10_000, keepRecent: 2 })).toBe(4);
  });

  it("never cuts between a tool call and its results: the cut moves back to the call", () => {
    const messages = [user("a"), answer("b"), user("c"), call("1"), result("1"), result("1"), answer("d")];
    // keepRecent 3 would start the kept part at a tool result (index 4): the call at 3 is kept with it.
    const cut = planCut({ messages, covered: 0, fixedTokens: 0, budget: 10_000, keepRecent: 3 })!;
    expect(cut).toBe(3);
    expect(messages[cut].role).not.toBe("tool");
  });

  it("keeps fewer messages than keepRecent when they alone break the budget", () => {
    const big = "x".repeat(4_000);
    const messages = [user("a"), answer(big), user(big), answer(big), user("last question")];
    const cut = planCut({ messages, covered: 0, fixedTokens: 100, budget: 500, keepRecent: 4 })!;
    expect(cut).toBe(4);
    expect(100 + estimateMessagesTokens(messages.slice(cut))).toBeLessThanOrEqual(500);
  });

  it("summarizes at least one message past what the summary already covers, and nothing when none is left", () => {
    const messages = [user("a"), answer("b"), user("c"), answer("d")];
    expect(planCut({ messages, covered: 2, fixedTokens: 0, budget: 10_000, keepRecent: 10 })).toBe(3);
    expect(planCut({ messages, covered: 3, fixedTokens: 0, budget: 10_000, keepRecent: 1 })).toBeNull();
  });

  it("does not cut into a tool call's results even when only they are over budget", () => {
    const messages = [user("a"), call("1"), result("1", "y".repeat(10_000)), result("1", "z".repeat(10_000))];
    expect(planCut({ messages, covered: 0, fixedTokens: 0, budget: 100, keepRecent: 1 })).toBe(1);
  });
});
