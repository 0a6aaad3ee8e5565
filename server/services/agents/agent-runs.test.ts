import { describe, expect, it } from "vitest";
import type { AgentNodeDelta } from "@/server/agent/graph-node/agent-node";
import { AgentRuns, type LiveDelta } from "./agent-runs";

const delta = (text: string, over: Partial<AgentNodeDelta> = {}): AgentNodeDelta => ({
  instanceId: "i1",
  node: "coder",
  invocationId: "inv1",
  turnId: "t1",
  attempt: 1,
  iteration: 1,
  channel: "text",
  text,
  ...over,
});

describe("AgentRuns live text", () => {
  it("hands a late subscriber the text streamed so far, then each delta once", () => {
    const runs = new AgentRuns(undefined);
    runs.publish(delta("Thinking about "));
    runs.publish(delta("step 1. "));
    runs.publish(delta("weighing", { channel: "reasoning" }));
    const got: LiveDelta[] = [];
    const off = runs.subscribe("i1", (d) => got.push(d));
    runs.publish(delta("Step 2."));
    expect(got.map((d) => [d.channel, d.text, d.whole ?? false])).toEqual([
      ["text", "Thinking about step 1. ", true],
      ["text", "Step 2.", false],
    ]);
    off();
  });

  it("starts over at the next model call, and forgets a call once it ends", () => {
    const runs = new AgentRuns(undefined);
    runs.publish(delta("first call"));
    runs.publish(delta("second call", { iteration: 2 }));
    runs.publish(delta("other node", { invocationId: "inv2", node: "reviewer" }));
    const snapshot = (): string[] => {
      const got: LiveDelta[] = [];
      runs.subscribe("i1", (d) => got.push(d))();
      return got.map((d) => `${d.invocationId}:${d.text}`);
    };
    expect(snapshot()).toEqual(["inv1:second call", "inv2:other node"]);
    runs.publish(delta("", { channel: "end", iteration: 2 }));
    expect(snapshot()).toEqual(["inv2:other node"]);
    runs.publish(delta("", { channel: "end", invocationId: "inv2" }));
    expect(snapshot()).toEqual([]);
    // Another instance's subscriber sees none of it.
    runs.publish(delta("again"));
    const other: LiveDelta[] = [];
    runs.subscribe("i2", (d) => other.push(d))();
    expect(other).toEqual([]);
  });

  it("a relayed whole text replaces the call's text so far, for its viewers and a late one; soFar lists every streaming call", () => {
    const runs = new AgentRuns(undefined);
    runs.received(delta("hel"));
    const got: LiveDelta[] = [];
    runs.subscribe("i1", (d) => got.push(d));
    // What was missed meanwhile ("lo, wor") comes back in the whole text; what follows continues it.
    runs.received({ ...delta("hello, wor"), whole: true });
    runs.received(delta("ld"));
    expect(got.map((d) => [d.text, d.whole ?? false])).toEqual([
      ["hel", true],
      ["hello, wor", true],
      ["ld", false],
    ]);
    const late: LiveDelta[] = [];
    runs.subscribe("i1", (d) => late.push(d));
    expect(late).toMatchObject([{ text: "hello, world", whole: true }]);
    runs.publish(delta("other", { instanceId: "i2" }));
    expect(runs.soFar().map((d) => `${d.instanceId}:${d.text}`)).toEqual(["i1:hello, world", "i2:other"]);
    expect(runs.soFar().some((d) => "whole" in d)).toBe(false);
  });
});
