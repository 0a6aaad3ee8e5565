import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedProvider } from "../llm/providers/scripted-provider";
import { defineTool } from "../tools/tool";
import { currentAgentRun, type AgentRunContext } from "./agent-run-context";
import { ReactAgent } from "./react-agent";

describe("agent run context (AsyncLocalStorage)", () => {
  it("tools see the run they execute in; concurrent runs stay apart; nothing leaks outside", async () => {
    const seen: Array<AgentRunContext | undefined> = [];
    const whoami = defineTool({
      name: "whoami",
      description: "",
      args: z.object({}),
      execute: async () => {
        await new Promise((r) => setImmediate(r));
        seen.push(currentAgentRun());
        return "ok";
      },
    });
    const agent = new ReactAgent({ provider: new ScriptedProvider((r) => (r.messages.at(-1)?.role === "tool" ? { text: "done" } : { toolCalls: [{ name: "whoami" }] })), tools: [whoami] });
    await Promise.all([agent.run("a", { sessionId: "s1", turnId: "t1" }), agent.run("b", { sessionId: "s2", turnId: "t2" })]);
    expect(seen.map((c) => `${c?.sessionId}/${c?.turnId}`).sort()).toEqual(["s1/t1", "s2/t2"]);
    expect(currentAgentRun()).toBeUndefined();
  });
});
