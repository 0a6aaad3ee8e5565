import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { CONSOLIDATION_PROMPT_HEAD } from "@/server/agent/memory/consolidation";
import { SUMMARY_TAG } from "@/server/agent/memory/context-memory";
import { MemoryAttributes } from "@/server/agent/memory/memory-trace-hook";
import { EXAMPLE_AGENTS_DIR, testServices } from "../testing/test-services";

/** The example agents (the example specs name them), with an `assistant` whose small context budget a few long messages break. */
const agentsDir = mkdtempSync(path.join(os.tmpdir(), "modex-memory-agents-"));
cpSync(EXAMPLE_AGENTS_DIR, agentsDir, { recursive: true });
writeFileSync(
  path.join(agentsDir, "assistant.yml"),
  "name: assistant\ndescription: Answers.\ninstructions: Answer.\nmemory:\n  max_context_tokens: 1200\n  keep_recent_messages: 2\n",
);

describe("a long chat (memory cleanup) on SQLite", () => {
  afterAll(() => rmSync(agentsDir, { recursive: true, force: true }));

  it("summarizes older messages before the model call that would break the budget: stored, announced, traced, and used by the next turns", async () => {
    const provider = new ScriptedProvider((request) =>
      request.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD) ? { text: "The user asked about topics 0 to 2." } : { text: `An answer. ${"a".repeat(300)}` },
    );
    await using t = testServices("sqlite", { chatProvider: provider, agentsDir });
    const { sessionId } = await t.services.chat.send({ message: `topic 0 ${"x".repeat(1_000)}` });
    await t.services.chat.idle(sessionId);
    for (let i = 1; i < 5; i++) {
      await t.services.chat.send({ sessionId, message: `topic ${i} ${"x".repeat(1_000)}` });
      await t.services.chat.idle(sessionId);
    }
    const events = await t.services.chat.events(sessionId);
    const marker = events.find((e) => e.type === "context_summarized");
    expect(marker).toMatchObject({ type: "context_summarized", mode: "consolidated", summary: "The user asked about topics 0 to 2." });
    // The transcript still has every message.
    expect(events.filter((e) => e.type === "user_message")).toHaveLength(5);

    // The request after the cleanup holds the summary, not the old messages.
    const chatRequests = provider.requests.filter((r) => !r.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD));
    const last = chatRequests.at(-1)!;
    expect(last.messages.some((m) => m.content.includes(`<${SUMMARY_TAG}>`))).toBe(true);
    expect(last.messages.some((m) => m.content.startsWith("topic 0 "))).toBe(false);

    // Stored with the chat (committed): a restart starts from the same summary.
    const reader = new Database(t.databaseFile!, { readonly: true });
    const row = reader.prepare("SELECT summary FROM chat_memory WHERE session_id = ?").get(sessionId) as { summary: string };
    reader.close();
    expect(JSON.parse(row.summary)).toMatchObject({ text: "The user asked about topics 0 to 2.", mode: "consolidated" });

    // Traced: a memory cleanup span with the tokens before and after.
    const spans = (await t.services.chat.trace(sessionId, marker!.turnId)).spans;
    const cleanup = spans.find((s) => s.name === "memory cleanup");
    expect(cleanup).toBeDefined();
    expect(cleanup!.attributes[MemoryAttributes.TOKENS_BEFORE]).toBeGreaterThan(cleanup!.attributes[MemoryAttributes.TOKENS_AFTER] as number);
  });
});
