import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "../../llm/providers/scripted-provider";
import { ReactAgent } from "../../react/react-agent";
import { LengthGuardHook, MAX_NUDGES } from "./length-guard-hook";

const degenerate = { finishReason: "length" as const };

describe("LengthGuardHook", () => {
  it("nudges a degenerate max-tokens ending into another attempt, which can recover", async () => {
    const provider = new ScriptedProvider([degenerate, { text: "Here it is." }]);
    const outcome = await new ReactAgent({ provider, maxTurns: 3, hooks: [{ hook: new LengthGuardHook() }] }).run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result).toMatchObject({ stopReason: "completed", content: "Here it is.", turnAttempts: 2 });
    expect(provider.requests[1].messages.at(-1)?.content).toContain("output limit");
  });

  it(`after ${MAX_NUDGES} nudges rewrites the result to ERROR instead of completing silently`, async () => {
    const provider = new ScriptedProvider(() => degenerate);
    const outcome = await new ReactAgent({ provider, maxTurns: 50, hooks: [{ hook: new LengthGuardHook() }] }).run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result).toMatchObject({ stopReason: "error", turnAttempts: MAX_NUDGES + 1 });
  });

  it("with no attempt left fails honestly at once", async () => {
    const outcome = await new ReactAgent({ provider: new ScriptedProvider([degenerate]), hooks: [{ hook: new LengthGuardHook() }] }).run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("error");
  });

  it("leaves normal endings, and length endings with content, alone", async () => {
    const provider = new ScriptedProvider([{ text: "partial but real", finishReason: "length" }]);
    const outcome = await new ReactAgent({ provider, hooks: [{ hook: new LengthGuardHook() }] }).run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("completed");
  });
});
