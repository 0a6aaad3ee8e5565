import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { resumeAnswerOf } from "@/shared/resume-answer";
import { testServices } from "./testing/test-services";

/**
 * An answer to a human-input node is the run's record, not the answering tab's: the instance keeps it
 * (`answers`: value, node, who, when) and the event log holds the resume deliver that carried it, so a
 * reload, another browser or modexctl reads what was answered and when, however the answer came.
 */
describe("the record of an answer (sqlite)", () => {
  it("an answer given through the API is in the instance's answers and its timeline, committed", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, commands, instances } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "approval-gate", input: "v1" });
    await t.settled(instanceId);
    const before = Date.now();
    await commands.answer({ instanceId, value: "yes", by: "token" });
    await t.settled(instanceId);

    // A fresh read of the instance (what a reload asks for): the answer with who gave it and when.
    const view = await instances.get({ instanceId });
    expect(view.summary.status).toBe("completed");
    expect(view.summary.answers).toEqual([{ node: "approve", value: "yes", by: "token", at: expect.any(Number), version: 1 }]);
    expect(view.summary.answers[0].at).toBeGreaterThanOrEqual(before);

    // The timeline's rows: one answer, to the node that waited, at the time the run took it.
    const { count } = await instances.timeline({ instanceId });
    const rows = await instances.timelineRows({ instanceId, version: 1, offset: 0, limit: count });
    const answered = rows.flatMap((r) => {
      const a = resumeAnswerOf(r.event);
      return a ? [{ ...a, at: r.at }] : [];
    });
    expect(answered).toEqual([{ kind: "answer", node: "approve", value: "yes", at: expect.any(Number) }]);
    expect(answered[0].at).toBeGreaterThanOrEqual(view.summary.answers[0].at);

    // Committed: another connection to the database file (another process) finds it in the event log.
    const reader = new Database(t.databaseFile!, { readonly: true });
    try {
      const logged = reader.prepare("SELECT payload FROM engine_events WHERE instance_id = ? AND type = 'deliver_promoted'").all(instanceId) as { payload: string }[];
      expect(logged.map((r) => resumeAnswerOf(JSON.parse(r.payload))).filter((a) => a !== null)).toEqual([{ kind: "answer", node: "approve", value: "yes" }]);
    } finally {
      reader.close();
    }
  });

  it("each answer of a run that asks twice is kept, in order, with the version it resumed", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, commands, control, instances } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "approval-gate", input: "v1" });
    await t.settled(instanceId);
    await commands.answer({ instanceId, value: "no", by: "session" });
    await t.settled(instanceId);
    await control.reinvoke(instanceId, "v2");
    await t.settled(instanceId);
    await commands.answer({ instanceId, value: { approve: true }, by: "token" });
    await t.settled(instanceId);
    const { summary } = await instances.get({ instanceId });
    expect(summary.answers.map(({ value, by, version }) => ({ value, by, version }))).toEqual([
      { value: "no", by: "session", version: 1 },
      { value: { approve: true }, by: "token", version: 2 },
    ]);
    const v1 = await instances.get({ instanceId, version: 1 });
    expect(v1.summary.answers.filter((a) => a.version === v1.summary.shownVersion).map((a) => a.value)).toEqual(["no"]);
  });
});
