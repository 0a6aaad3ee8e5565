import { describe, expect, it } from "vitest";
import { slowChainSpec } from "./testing/slow-chain-spec";
import { testServices, type TestServices } from "./testing/test-services";

const ran = async (t: TestServices, instanceId: string) =>
  (await t.services.instances.get({ instanceId })).invocations.filter((i) => i.status === "COMPLETED").map((i) => i.node);

describe("breakpoints through the app", () => {
  it("a run created with a breakpoint pauses before it; Step runs one node; Resume continues to the end", async () => {
    await using t = testServices();
    await t.services.specs.save(slowChainSpec("bp-chain", 5));
    const { body } = await t.services.commands.create({ spec: "bp-chain", input: "x", breakpoints: ["d2"] });
    expect((await t.settled(body.instanceId)).status).toBe("paused");
    let view = await t.services.instances.get({ instanceId: body.instanceId });
    expect([view.heldAt, view.breakpoints, view.waitingFor]).toEqual(["d2", ["d2"], null]);
    expect(await ran(t, body.instanceId)).toEqual(["__start__", "fetch", "d1"]);
    const drained = (await t.services.events.list(body.instanceId)).map((e) => e.event).find((e) => e.type === "drained");
    expect(drained).toMatchObject({ reason: "pause" });

    expect(await t.services.control.resume(body.instanceId, { step: true })).toMatchObject({ command: "STEP" });
    expect((await t.settled(body.instanceId)).status).toBe("paused");
    view = await t.services.instances.get({ instanceId: body.instanceId });
    expect(view.heldAt).toBe("d3");
    expect(await ran(t, body.instanceId)).toEqual(["__start__", "fetch", "d1", "d2"]);

    await t.services.control.resume(body.instanceId);
    expect((await t.settled(body.instanceId)).status).toBe("completed");
    view = await t.services.instances.get({ instanceId: body.instanceId });
    expect([view.heldAt, view.summary.result?.map((p) => p.content)]).toEqual([null, ["published item x"]]);
  });

  it("breakpoints set while a run goes are taken at once; unknown nodes are refused", async () => {
    await using t = testServices();
    await t.services.specs.save(slowChainSpec("bp-live", 80));
    const { body } = await t.services.commands.create({ spec: "bp-live", input: "y" });
    expect(await t.services.control.setBreakpoints(body.instanceId, ["publish"])).toMatchObject({ breakpoints: ["publish"] });
    expect((await t.settled(body.instanceId)).status).toBe("paused");
    expect((await t.services.instances.get({ instanceId: body.instanceId })).heldAt).toBe("publish");
    await expect(t.services.control.setBreakpoints(body.instanceId, ["ghost"])).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(t.services.commands.create({ spec: "bp-live", breakpoints: ["ghost"] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await t.services.control.setBreakpoints(body.instanceId, []);
    await t.services.control.resume(body.instanceId);
    expect((await t.settled(body.instanceId)).status).toBe("completed");
  });
});
