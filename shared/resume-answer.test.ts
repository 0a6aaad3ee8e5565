import { describe, expect, it } from "vitest";
import { resumeAnswerOf } from "./resume-answer";

const promoted = (source: string, payload: unknown) => ({ type: "deliver_promoted" as const, instanceId: "1", deliverId: "2", source, target: "approve", payload });

describe("resumeAnswerOf", () => {
  it("reads a person's answer from the entry node's resume deliver, and an agent's decision apart from it", () => {
    expect(resumeAnswerOf(promoted("__start__", { __resume__: true, value: { ok: "yes" } }))).toEqual({ kind: "answer", node: "approve", value: { ok: "yes" } });
    expect(resumeAnswerOf(promoted("__start__", { __resume__: true, value: { transactionId: "t1", approved: false, reason: "no" } }))).toEqual({ kind: "decision", node: "approve", approved: false });
  });

  it("is null for any other deliver or event: graph input, a node's output, a staged resume", () => {
    expect(resumeAnswerOf(promoted("__start__", { content: "v1" }))).toBeNull();
    expect(resumeAnswerOf(promoted("draft", { __resume__: true, value: "yes" }))).toBeNull();
    expect(resumeAnswerOf({ ...promoted("__start__", { __resume__: true, value: "yes" }), type: "deliver_staged" })).toBeNull();
    expect(resumeAnswerOf(promoted("__start__", null))).toBeNull();
  });
});
