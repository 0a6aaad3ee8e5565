import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { authorOf } from "./answer-author";
import { AuthService } from "./auth-service";
import { approvalsOf } from "./agents/approval-records";
import { TEST_TOKEN, testServices } from "./testing/test-services";

/** The author of a request carrying `cookie`, as the tRPC and REST routes make it. */
async function authorWith(auth: AuthService, cookie: string) {
  return authorOf(await auth.authenticate(new Headers({ cookie: `modex_session=${cookie}` })));
}

/**
 * An answer or approval decision is recorded with the sign-in session it came from (its ref, never the
 * cookie), on a real SQLite file, so every tab of that login can tell it is its own.
 */
describe("who answered or decided, by sign-in session (sqlite)", () => {
  const auth = new AuthService(TEST_TOKEN);
  const [first, second] = [auth.createSession().value, auth.createSession().value];

  it("each answer keeps its browser session's ref (the same for that login's every request); the API's none", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, commands, control, instances } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "approval-gate", input: "v1" });
    await t.settled(instanceId);
    await commands.answer({ instanceId, value: "no", by: await authorWith(auth, first) });
    await t.settled(instanceId);
    for (const [input, by] of [["v2", await authorWith(auth, second)], ["v3", authorOf({ via: "bearer" })]] as const) {
      await control.reinvoke(instanceId, input);
      await t.settled(instanceId);
      await commands.answer({ instanceId, value: input, by });
      await t.settled(instanceId);
    }
    const { summary } = await instances.get({ instanceId }); // a fresh read, as a reload makes
    const [a, b, c] = summary.answers;
    expect(a).toMatchObject({ value: "no", by: "session", session: (await authorWith(auth, first)).session });
    expect(b).toMatchObject({ value: "v2", by: "session", session: (await authorWith(auth, second)).session });
    expect(a.session).toMatch(/^[0-9a-f]{16}$/);
    expect(a.session).not.toBe(b.session);
    expect(c).toEqual({ node: "approve", value: "v3", by: "token", at: expect.any(Number), version: 3 });
    expect(JSON.stringify(summary.answers)).not.toContain(first.split(".")[1]); // never the cookie's nonce
  });

  it("an approval decision keeps its browser session's ref", async () => {
    const publisher = new ScriptedProvider([{ toolCalls: [{ name: "deliver", args: { target: "__end__", content: "notes" } }] }, { text: "published" }]);
    const drafter = new ScriptedProvider([{ toolCalls: [{ name: "deliver", args: { target: "publisher", content: "- a fix" } }] }, { text: "sent" }]);
    const provider: AgentNodeDeps["provider"] = (_config, node) => (node === "publisher" ? publisher : drafter);
    await using t = testServices("sqlite", { provider });
    const { orchestrator, commands } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "release-notes", input: "a fix" });
    expect((await t.settled(instanceId)).status).toBe("paused");
    await commands.decide({ instanceId, approved: true, by: await authorWith(auth, first) });
    const done = await t.settled(instanceId);
    expect(done.status).toBe("completed");
    expect(approvalsOf(done)).toEqual([expect.objectContaining({ tool: "deliver", approved: true, by: "session", session: (await authorWith(auth, first)).session })]);
  });
});
