import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { createAppServices, type AppServices } from "./app-services";
import { AuthService } from "./auth-service";
import type { StoredEvent } from "./event-log";
import { EXAMPLE_SPECS_DIR, testServices, TEST_TOKEN } from "./testing/test-services";

const COUNTER = readFileSync(path.join(EXAMPLE_SPECS_DIR, "counter-loop.yml"), "utf8");

async function runCounter(services: AppServices): Promise<string> {
  const { instanceId } = await services.orchestrator.create({ spec: "counter-loop" });
  await services.orchestrator.settled(instanceId);
  return instanceId;
}

/** The id of the n-th (1-based) completion of `node`. */
function completion(events: readonly StoredEvent[], node: string, n: number): number {
  const found = events.filter((e) => e.event.type === "node_completed" && e.event.node === node);
  return found[n - 1].id;
}

const resultOf = async (services: AppServices, instanceId: string) => {
  await services.orchestrator.settled(instanceId);
  const view = await services.instances.get({ instanceId });
  return { status: view.summary.status, result: view.summary.result?.map((p) => p.content), view };
};

describe("the state and ledger at any point of a run", () => {
  it("shows the state each completion saved and the delivers still open then", async () => {
    await using t = testServices();
    const { services } = t;
    const id = await runCounter(services);
    const events = (await services.events.list(id));
    const second = completion(events, "tick", 2);
    const point = await services.forks.pointAt(id, second);
    expect(point.state).toMatchObject({ count: 2 });
    expect(point.asOf).toMatchObject({ node: "tick" });
    expect(point.pending.map((p) => `${p.source}→${p.target}`)).toEqual(["tick→check"]);
    expect(point.unforkable).toBeNull();
    // Before any node ran: the initial state; at the end: nothing left to run.
    expect((await services.forks.pointAt(id, events[0].id)).state).toMatchObject({ count: 0 });
    expect((await services.forks.pointAt(id, events[0].id)).initial).toBe(true);
    expect((await services.forks.pointAt(id, events.at(-1)!.id)).unforkable).toMatch(/reached END/);
    await expect(services.forks.pointAt(id, 999_999_999)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("inside a completion's announcement (its delivers logged, not yet node_completed): the node still runs, its outputs are not open", async () => {
    await using t = testServices();
    const { services } = t;
    const id = await runCounter(services);
    const events = await services.events.list(id);
    const promotedByTick = events.find((e) => e.id < completion(events, "tick", 2) && e.id > completion(events, "check", 1) && e.event.type === "deliver_promoted")!;
    const point = await services.forks.pointAt(id, promotedByTick.id);
    expect(point.running).toEqual(["tick"]);
    expect(point.pending.map((p) => `${p.source}→${p.target}`)).toEqual(["check→tick"]);
    expect(point.state).toMatchObject({ count: 1 });
    // The fork runs tick again once, not also check on the output tick had announced: one result.
    const fork = await services.forks.fork({ instanceId: id, eventId: promotedByTick.id });
    expect((await resultOf(services, fork.instanceId)).result).toEqual(["counted to 5"]);
  });
});

describe("a fork from any point", () => {
  it("runs on from that point's state and ledger, links to its origin, and the origin lists it", async () => {
    await using t = testServices();
    const { services } = t;
    const id = await runCounter(services);
    const at = completion((await services.events.list(id)), "tick", 2);
    const fork = await services.forks.fork({ instanceId: id, eventId: at });
    expect(fork.instanceId).not.toBe(id);
    const { status, result, view } = await resultOf(services, fork.instanceId);
    expect(status).toBe("completed");
    expect(result).toEqual(["counted to 5"]);
    // From count 2: tick ran three more times, never from START's input again.
    const full = await services.instances.get({ instanceId: fork.instanceId });
    expect(full.invocations.filter((i) => i.node === "tick")).toHaveLength(3);
    expect(full.invocations.some((i) => i.node === "__start__")).toBe(false);
    expect(view.summary.lineage.forkedFrom).toMatchObject({ instanceId: id, eventId: at, version: 1, stateEdited: false });
    const origin = await services.instances.get({ instanceId: id, node: null });
    expect(origin.summary.lineage.forks.map((f) => f.instanceId)).toEqual([fork.instanceId]);
    const second = await services.forks.fork({ instanceId: id, eventId: at });
    await services.orchestrator.settled(second.instanceId);
    await services.control.delete(second.instanceId);
    expect((await services.instances.get({ instanceId: id, node: null })).summary.lineage.forks.map((f) => f.instanceId)).toEqual([fork.instanceId]);
    // A fork of the fork, from its first event: the seeded state and ledger.
    const first = (await services.events.list(fork.instanceId)).find((e) => e.event.type === "deliver_promoted")!;
    const point = await services.forks.pointAt(fork.instanceId, first.id);
    expect(point.state).toMatchObject({ count: 2 });
    expect(point.pending.map((p) => p.target)).toEqual(["check"]);
  });

  it("leaves the origin where it was in the Instances list: the fork is the newest row", async () => {
    await using t = testServices();
    const { services } = t;
    const origin = await runCounter(services);
    const later = await runCounter(services);
    const fork = await services.forks.fork({ instanceId: origin, eventId: completion(await services.events.list(origin), "tick", 2) });
    await services.orchestrator.settled(fork.instanceId);
    expect((await services.instances.page({ graph: "counter-loop" })).items.map((r) => r.instanceId)).toEqual([fork.instanceId, later, origin]);
  });

  it("starts from an edited state, validated by the spec's state schema", async () => {
    await using t = testServices();
    const { services } = t;
    const id = await runCounter(services);
    const at = completion((await services.events.list(id)), "tick", 2);
    const point = await services.forks.pointAt(id, at);
    await expect(services.forks.fork({ instanceId: id, eventId: at, state: { ...(point.state as object), count: "four" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/state schema: count/),
    });
    const fork = await services.forks.fork({ instanceId: id, eventId: at, state: { ...(point.state as object), count: 4 } });
    const { result } = await resultOf(services, fork.instanceId);
    expect(result).toEqual(["counted to 5"]);
    const full = await services.instances.get({ instanceId: fork.instanceId });
    expect(full.invocations.filter((i) => i.node === "tick")).toHaveLength(1);
    expect(full.summary.lineage.forkedFrom?.stateEdited).toBe(true);
  });

  it("runs on a newer revision when the nodes left to run exist in it, and refuses one without them", async () => {
    await using t = testServices();
    const { services } = t;
    const id = await runCounter(services);
    const at = completion((await services.events.list(id)), "tick", 2);
    await services.specs.save(COUNTER.replace('"counted to {{state.count}}"', '"reached {{state.count}}"'));
    const fork = await services.forks.fork({ instanceId: id, eventId: at, spec: "latest" });
    expect((await resultOf(services, fork.instanceId)).result).toEqual(["reached 5"]);
    expect(fork.forkedFrom.specId).not.toBeNull();

    const withoutCheck = COUNTER.replace(/  - name: check[\s\S]*?else: done\n/, "").replace(/.*check.*\n/g, "").concat("  - { from: tick, to: done }\n");
    await services.specs.save(withoutCheck);
    await expect(services.forks.fork({ instanceId: id, eventId: at, spec: "latest" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/has no node check/),
    });
  });

  it("from a run waiting for a person: the fork asks again, and its answer finishes the fork only", async () => {
    await using t = testServices();
    const { services } = t;
    const { instanceId: id } = await services.orchestrator.create({ spec: "approval-gate", input: "v2" });
    expect((await t.settled(id)).status).toBe("paused");
    const last = (await services.events.list(id)).at(-1)!;
    const point = await services.forks.pointAt(id, last.id);
    expect(point.pending.map((p) => p.target)).toEqual(["approve"]);
    const fork = await services.forks.fork({ instanceId: id, eventId: last.id });
    const waiting = await t.settled(fork.instanceId);
    expect(waiting.status).toBe("paused");
    expect((await services.instances.get({ instanceId: fork.instanceId, node: null })).waitingFor).toMatchObject({ kind: "human_input" });
    await services.control.answer(fork.instanceId, "yes");
    expect((await resultOf(services, fork.instanceId)).result).toEqual(["published (answer: yes)"]);
    expect((await t.settled(id)).status).toBe("paused");
  });

  it("refuses a point where the run had ended", async () => {
    await using t = testServices();
    const id = await runCounter(t.services);
    const last = (await t.services.events.list(id)).at(-1)!;
    await expect(t.services.forks.fork({ instanceId: id, eventId: last.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("survives a restart: the fork, its link and the states per point are on disk", async () => {
    using temp = new TempDatabase();
    const open = () => createAppServices({ db: temp.db, auth: new AuthService(TEST_TOKEN), heartbeatMs: 0 });
    let services = open();
    await services.specs.loadDirectory(EXAMPLE_SPECS_DIR);
    const id = await runCounter(services);
    const at = completion((await services.events.list(id)), "tick", 3);
    const fork = await services.forks.fork({ instanceId: id, eventId: at });
    await services.orchestrator.settled(fork.instanceId);
    services.recovery.stop();
    services.triggers.end();
    temp.reopen();
    services = open();
    try {
      expect((await services.forks.pointAt(id, at)).state).toMatchObject({ count: 3 });
      const view = await services.instances.get({ instanceId: fork.instanceId });
      expect(view.summary.status).toBe("completed");
      expect(view.summary.lineage.forkedFrom?.instanceId).toBe(id);
      expect((await services.instances.get({ instanceId: id, node: null })).summary.lineage.forks).toHaveLength(1);
    } finally {
      services.recovery.stop();
      services.triggers.end();
    }
  });
});
