import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { parseEnv } from "@/server/env";
import { startAppServices, type AppServices } from "@/server/services/app-services";
import type { StoredEvent } from "@/server/services/event-log";
import { createClusterAppServices } from "./cluster-app-services";
import { ClusterWorker } from "./cluster-worker";
import { specServiceCatalog } from "./spec-service-catalog";

/**
 * Time travel on a PostgreSQL cluster: a worker's completions keep the state as of each step (the replay
 * state panel of a web process shows it), and a fork made on the web process commits with its job, so
 * a worker runs it on from the point's state and ledger (counter-loop: tick counts to 5 in a loop).
 */
describe("the state at any point, and forks, on a cluster", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  /** A web process (MODEX_ROLE=web, running nothing) and a worker in this test's process. */
  async function cluster(): Promise<AppServices> {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const dataDir = mkdtempSync(path.join(tmpdir(), "modex-web-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = parseEnv({ DATABASE_URL: database.url, MODEX_ROLE: "web", MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40) });
    const services = await createClusterAppServices({ url: database.url, env });
    cleanup.push(() => services.close?.());
    await startAppServices(services, { specsDir: env.specsDir, recover: false });
    const worker = await ClusterWorker.start({ url: database.url, graphs: specServiceCatalog(services.specs), leaseMs: 2000 });
    cleanup.push(() => worker.stop(1000));
    return services;
  }

  const finished = async (services: AppServices, instanceId: string) => {
    await expect.poll(async () => (await services.instances.get({ instanceId })).summary.status, { timeout: 20_000 }).toBe("completed");
    const view = await services.instances.get({ instanceId });
    return { view, result: view.summary.result?.map((p) => p.content), ticks: view.invocations.filter((i) => i.node === "tick").length };
  };

  const runCounter = async (services: AppServices) => {
    const { instanceId } = (await services.commands.create({ spec: "counter-loop" })).body;
    await finished(services, instanceId);
    return instanceId;
  };

  /** The id of the n-th (1-based) completion of `node`. */
  const completion = (events: readonly StoredEvent[], node: string, n: number) =>
    events.filter((e) => e.event.type === "node_completed" && e.event.node === node)[n - 1].id;

  it("shows each step's state of a run a worker executed, as of the completion that changed it", async () => {
    const services = await cluster();
    const id = await runCounter(services);
    const events = await services.events.list(id);
    const point = await services.forks.pointAt(id, completion(events, "tick", 2));
    expect(point.state).toMatchObject({ count: 2 });
    expect(point.asOf).toMatchObject({ node: "tick" });
    expect(point).toMatchObject({ initial: false, version: 1 });
    expect(point.pending.map((p) => `${p.source}→${p.target}`)).toEqual(["tick→check"]);
    expect(point.unforkable).toBeNull();
    // check leaves the state alone: after its third completion the state is still as tick's third saved it.
    const third = await services.forks.pointAt(id, completion(events, "check", 3));
    expect(third.state).toMatchObject({ count: 3 });
    expect(third.asOf).toMatchObject({ node: "tick", eventId: completion(events, "tick", 3) });
    expect(third.pending.map((p) => p.target)).toEqual(["tick"]);
    const first = await services.forks.pointAt(id, events[0].id);
    expect(first).toMatchObject({ initial: true, state: { count: 0 } });
    expect((await services.forks.pointAt(id)).unforkable).toMatch(/reached END/);
  }, 90_000);

  it("a fork commits with its job and a worker runs it on from the point's state, or an edited one", async () => {
    const services = await cluster();
    const id = await runCounter(services);
    const at = completion(await services.events.list(id), "tick", 2);

    const fork = await services.forks.fork({ instanceId: id, eventId: at });
    expect(fork.instanceId).not.toBe(id);
    expect(fork.forkedFrom).toMatchObject({ instanceId: id, eventId: at, version: 1, stateEdited: false });
    const ran = await finished(services, fork.instanceId);
    expect(ran.result).toEqual(["counted to 5"]);
    // From count 2: tick ran three more times, never from START's input again.
    expect(ran.ticks).toBe(3);
    expect(ran.view.invocations.some((i) => i.node === "__start__")).toBe(false);
    expect(ran.view.summary.lineage.forkedFrom).toMatchObject({ instanceId: id, eventId: at, stateEdited: false });
    // The fork's first events were committed with it: its seeded state and ledger are a point too.
    const forkEvents = await services.events.list(fork.instanceId);
    expect(forkEvents.slice(0, 2).map((e) => e.event.type)).toEqual(["instance_status", "deliver_promoted"]);
    const seeded = await services.forks.pointAt(fork.instanceId, forkEvents[1].id);
    expect(seeded).toMatchObject({ initial: true, state: { count: 2 } });
    expect(seeded.pending.map((p) => p.target)).toEqual(["check"]);

    const point = await services.forks.pointAt(id, at);
    await expect(services.forks.fork({ instanceId: id, eventId: at, state: { ...(point.state as object), count: "four" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/state schema: count/),
    });
    const edited = await services.forks.fork({ instanceId: id, eventId: at, state: { ...(point.state as object), count: 4 } });
    const editedRun = await finished(services, edited.instanceId);
    expect(editedRun.result).toEqual(["counted to 5"]);
    expect(editedRun.ticks).toBe(1);
    expect(editedRun.view.summary.lineage.forkedFrom?.stateEdited).toBe(true);

    const origin = await services.instances.get({ instanceId: id, node: null });
    expect(origin.summary.lineage.forks.map((f) => f.instanceId)).toEqual([fork.instanceId, edited.instanceId]);
  }, 90_000);

  it("leaves the origin where it was in the Instances list: the fork is the newest row", async () => {
    const services = await cluster();
    const origin = await runCounter(services);
    const later = await runCounter(services);
    const fork = await services.forks.fork({ instanceId: origin, eventId: completion(await services.events.list(origin), "tick", 2) });
    await finished(services, fork.instanceId);
    expect((await services.instances.page({ graph: "counter-loop" })).items.map((r) => r.instanceId)).toEqual([fork.instanceId, later, origin]);
  }, 90_000);

  it("forks made at once from one origin are all listed by it", async () => {
    const services = await cluster();
    const id = await runCounter(services);
    const at = completion(await services.events.list(id), "tick", 4);
    const forks = await Promise.all([1, 2, 3].map(() => services.forks.fork({ instanceId: id, eventId: at })));
    for (const f of forks) expect((await finished(services, f.instanceId)).ticks).toBe(1);
    const listed = (await services.instances.get({ instanceId: id, node: null })).summary.lineage.forks.map((f) => f.instanceId);
    expect(listed.sort()).toEqual(forks.map((f) => f.instanceId).sort());
    await expect(services.forks.fork({ instanceId: id, eventId: 999_999_999 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  }, 90_000);
});
