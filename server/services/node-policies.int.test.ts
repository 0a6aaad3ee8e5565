import { describe, expect, it } from "vitest";
import { testServices } from "./testing/test-services";

const SPEC = (policy: string) => `
name: guarded-wait
defaults: { timeout_ms: 10000 }
nodes:
  - name: slow
    node_type: delay
    config: { ms: 200 }
    ${policy}
  - { name: done, node_type: function, config: { op: template, template: "done {{input}}" } }
edges:
  - { from: __start__, to: slow }
  - { from: slow, to: done }
  - { from: done, to: __end__ }
`;

describe("retry and timeout policies through the app", () => {
  it("a node past its timeout_ms is retried per its policy; each attempt is an invocation in the instance view, then the run fails", async () => {
    await using t = testServices();
    await t.services.specs.save(SPEC("timeout_ms: 20\n    retry: { max_attempts: 3, initial_interval_ms: 10, retry_on: [timed out] }"));
    const { body } = await t.services.commands.create({ spec: "guarded-wait", input: "x" });
    expect((await t.settled(body.instanceId)).status).toBe("failed");
    const view = await t.services.instances.get({ instanceId: body.instanceId });
    expect(view.invocations.filter((i) => i.node === "slow").map((i) => [i.status, i.error])).toEqual([
      ["FAILED", "node slow timed out after 20 ms"],
      ["FAILED", "node slow timed out after 20 ms"],
      ["FAILED", "node slow timed out after 20 ms"],
    ]);
    const failures = (await t.services.events.list(body.instanceId)).map((e) => e.event).filter((e) => e.type === "node_failed");
    expect(failures.map((e) => ("attempt" in e ? [e.attempt, e.retryInMs] : null))).toEqual([[1, 10], [2, 20], null]);
  });

  it("the spec's default timeout leaves a node that finishes in time alone", async () => {
    await using t = testServices();
    await t.services.specs.save(SPEC(""));
    const { body } = await t.services.commands.create({ spec: "guarded-wait", input: "x" });
    expect((await t.settled(body.instanceId)).status).toBe("completed");
    expect((await t.services.instances.get({ instanceId: body.instanceId })).summary.result?.map((p) => p.content)).toEqual(["done x"]);
  });
});
