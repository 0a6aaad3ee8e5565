import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { createAppServices } from "../app-services";
import { AuthService } from "../auth-service";
import { EXAMPLE_AGENTS_DIR, TEST_TOKEN } from "../testing/test-services";

const write = (todos: Array<{ content: string; status: string }>) => ({ toolCalls: [{ name: "todo_write", args: { todos } }] });

/** The app on `temp`'s database, chatting with the assistant (config/agents) on a scripted model. */
const app = (temp: TempDatabase, provider: ScriptedProvider) =>
  createAppServices({ db: temp.db, auth: new AuthService(TEST_TOKEN), heartbeatMs: 0, exclusive: true, agents: { agentsDir: EXAMPLE_AGENTS_DIR, chatProvider: provider } });

describe("a chat's todo list on SQLite", () => {
  it("survives a restart: the next turn is still reminded of the open items written before it", async () => {
    using temp = new TempDatabase();
    const before = new ScriptedProvider([
      write([{ content: "draft the notes", status: "completed" }, { content: "send the notes", status: "pending" }]),
      { text: "Drafted; sending needs you." },
      { text: "Waiting for your go." }, // reminded once, no progress: the turn ends with the item open
    ]);
    const first = app(temp, before);
    const { sessionId } = await first.chat.send({ message: "plan the notes" });
    await first.chat.idle(sessionId);
    expect(before.requests[2].messages.at(-1)?.content).toContain("- [pending] send the notes");
    first.recovery.stop();
    await first.orchestrator.drainAll();

    temp.reopen(); // the process restarts: a new connection, new services, nothing kept in memory
    const after = new ScriptedProvider([{ text: "Go it is." }, write([{ content: "draft the notes", status: "completed" }, { content: "send the notes", status: "completed" }]), { text: "Sent." }]);
    const second = app(temp, after);
    await second.chat.send({ sessionId, message: "go" });
    await second.chat.idle(sessionId);
    expect(after.requests).toHaveLength(3);
    expect(after.requests[1].messages.at(-1)?.content).toMatch(/1 open todo item\(s\):\n- \[completed\] draft the notes\n- \[pending\] send the notes/);
    expect((await second.chat.events(sessionId)).at(-1)).toMatchObject({ type: "turn_completed", content: "Sent." });
    second.recovery.stop();
    await second.orchestrator.drainAll();
  });
});
