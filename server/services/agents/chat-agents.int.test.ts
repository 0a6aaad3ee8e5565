import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { testServices } from "../testing/test-services";

describe("the chat picks its agent", () => {
  it("a new chat talks to the named agent it picks (its instructions and tools); later messages stay with it", async () => {
    const provider = new ScriptedProvider(() => ({ text: "ok" }));
    await using t = testServices("sqlite", { chatProvider: provider });
    const { sessionId } = await t.services.chat.send({ message: "hi", agent: "reviewer" });
    await t.services.chat.idle(sessionId);
    expect(provider.requests[0].messages[0].content).toContain("You review code changes.");
    expect(provider.requests[0].tools).toEqual([]);
    await t.services.chat.send({ sessionId, message: "again", agent: "coder" });
    await t.services.chat.idle(sessionId);
    expect(provider.requests[1].messages[0].content).toContain("You review code changes.");
    expect((await t.services.chat.list())[0]).toMatchObject({ sessionId, agent: "reviewer", turns: 2 });
  });

  it("without a pick it is the assistant (config/agents/assistant.yml); an unknown agent is NOT_FOUND", async () => {
    const provider = new ScriptedProvider(() => ({ text: "ok" }));
    await using t = testServices("sqlite", { chatProvider: provider });
    const { sessionId } = await t.services.chat.send({ message: "hi" });
    await t.services.chat.idle(sessionId);
    expect(provider.requests[0].tools.map((t) => t.name)).toEqual(["todo_write", "list_graphs", "instance_status", "run_graph"]);
    await expect(t.services.chat.send({ message: "hi", agent: "ghost" })).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
  });

  it("an edited definition reaches new chats", async () => {
    const provider = new ScriptedProvider(() => ({ text: "ok" }));
    await using t = testServices("sqlite", { chatProvider: provider });
    const yaml = (await t.services.agents.get("reviewer")).yaml.replace("You review code changes.", "You review prose.");
    expect((await t.services.agents.save(yaml, "reviewer")).created).toBe(true);
    const { sessionId } = await t.services.chat.send({ message: "hi", agent: "reviewer" });
    await t.services.chat.idle(sessionId);
    expect(provider.requests[0].messages[0].content).toContain("You review prose.");
  });
});
