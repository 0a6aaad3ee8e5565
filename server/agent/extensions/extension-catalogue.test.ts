import { describe, expect, it } from "vitest";
import { SecretMaskingExtension } from "./builtin/secret-masking-extension";
import { groupPoints, pointsWithListeners } from "./extension-catalogue";
import { ExtensionManager } from "./extension-manager";
import { ALL_EXTENSION_POINTS } from "./extension-point";
import { recordingLogger } from "../logger";

describe("the extension point catalogue", () => {
  it("puts all 25 points under the spec's table headings, in the spec's order, each with its mode", () => {
    const groups = groupPoints();
    expect(groups.map((g) => g.label)).toEqual([
      "Message Preparation",
      "LLM Interaction",
      "Prompt Pipeline",
      "Tool Execution",
      "Continuation Loop",
      "Error Handling",
      "Response",
      "Session Lifecycle",
      "Knowledge Integration",
      "Approval Flow",
    ]);
    expect(groups.flatMap((g) => g.points.map((p) => p.point))).toEqual([...ALL_EXTENSION_POINTS]);
    expect(groups[0].points).toEqual([
      { point: "BEFORE_MESSAGE_PROCESS", mode: "COLLECT" },
      { point: "BEFORE_PROMPT_BUILD", mode: "COLLECT" },
      { point: "AFTER_PROMPT_BUILD", mode: "TRANSFORM", transformKey: "prompt" },
    ]);
    const modes = Object.fromEntries(groups.flatMap((g) => g.points.map((p) => [p.point, p.mode])));
    expect(modes).toMatchObject({ BEFORE_LLM_CALL: "CANCELLABLE", APPROVAL_REQUIRED: "UNTIL_HANDLED", LOOP_COMPLETE: "TRANSFORM", SESSION_DESTROY: "COLLECT" });
  });

  it("groups one extension's points, leaving out the groups it has none in", () => {
    const masking = new SecretMaskingExtension({ patterns: [] });
    const manager = new ExtensionManager({ logger: recordingLogger() });
    manager.register(masking);
    const [status] = manager.getStatistics().extensions;
    expect(groupPoints(status.points).map((g) => [g.label, g.points.map((p) => p.point)])).toEqual([
      ["LLM Interaction", ["DURING_LLM_STREAMING", "AFTER_LLM_RESPONSE"]],
      ["Prompt Pipeline", ["FULL_PROMPT_READY"]],
      ["Tool Execution", ["BEFORE_TOOL_PARSE", "AFTER_TOOL_EXECUTE"]],
      ["Continuation Loop", ["LOOP_COMPLETE"]],
      ["Response", ["BEFORE_RESPONSE_SEND"]],
      ["Knowledge Integration", ["AFTER_RAG_RESULTS"]],
    ]);
    expect(groupPoints([])).toEqual([]);
  });

  it("names the enabled extensions listening at each point, in the order they run", () => {
    const manager = new ExtensionManager({ logger: recordingLogger() });
    manager.register({ name: "late", priority: 95, enabled: true, onBeforeLlmCall: () => undefined, onLoopComplete: () => undefined });
    manager.register(new SecretMaskingExtension({ patterns: [] }));
    manager.register({ name: "off", priority: 10, enabled: false, onLoopComplete: () => undefined });
    manager.register({ name: "early", priority: 5, enabled: true, onLoopComplete: () => undefined });
    const points = Object.fromEntries(pointsWithListeners(manager.getStatistics().extensions).flatMap((g) => g.points.map((p) => [p.point, p.listeners])));
    expect(Object.keys(points)).toHaveLength(25);
    expect(points.LOOP_COMPLETE).toEqual(["early", "secret_masking", "late"]);
    expect(points.BEFORE_LLM_CALL).toEqual(["late"]);
    expect(points.SESSION_CREATE).toEqual([]);
  });
});
