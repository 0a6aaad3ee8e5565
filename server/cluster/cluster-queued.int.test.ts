import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { parseEnv } from "@/server/env";
import { startAppServices, type AppServices } from "@/server/services/app-services";
import { createClusterAppServices } from "./cluster-app-services";
import { ClusterWorker } from "./cluster-worker";
import { specServiceCatalog } from "./spec-service-catalog";

/**
 * A web process's instance summary and Instances list say when work it accepted is queued: a resume,
 * an answer, a recover or a deliver's new run that no worker has started (the reply was `queued`)
 * reads `queued` until a worker starts the run, and clears by the time the run's `run_started` reaches
 * the web process's live feed (what the instance view waits on).
 */
describe("queued work in the instance summary of a web process", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function webProcess(): Promise<{ services: AppServices; url: string }> {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const dataDir = mkdtempSync(path.join(tmpdir(), "modex-queued-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = parseEnv({ DATABASE_URL: database.url, MODEX_ROLE: "web", MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40) });
    const services = await createClusterAppServices({ url: database.url, env });
    cleanup.push(() => services.close?.());
    await startAppServices(services, { specsDir: env.specsDir, recover: false });
    return { services, url: database.url };
  }

  async function startWorker(services: AppServices, url: string): Promise<ClusterWorker> {
    const worker = await ClusterWorker.start({ url, graphs: specServiceCatalog(services.specs), leaseMs: 2000 });
    cleanup.push(() => worker.stop(1000));
    return worker;
  }

  /** What the summary says at the moment the run's `run_started` arrives on the web process's bus. */
  function atRunStarted(services: AppServices, instanceId: string): Promise<unknown> {
    return new Promise((resolve) => {
      const off = services.bus.subscribe(instanceId, (e) => {
        if (e.event.type !== "run_started") return;
        off();
        resolve(services.instances.get({ instanceId, node: null }).then((v) => v.summary.queued));
      });
    });
  }

  it("a resume with no worker running reads queued (a second one is refused); a worker's start clears it and the run completes", async () => {
    const { services, url } = await webProcess();
    const first = await startWorker(services, url);
    const { instanceId } = (await services.commands.create({ spec: "paced-pipeline", input: "q", breakpoints: ["transform", "publish"] })).body;
    const summary = async () => (await services.instances.get({ instanceId, node: null })).summary;
    const heldAt = async () => (await services.instances.get({ instanceId, node: null })).heldAt;
    await expect.poll(heldAt, { timeout: 30_000 }).toBe("transform");
    // With a worker to start it, the reply (woken by the run's start on the live feed) is the started run:
    // running, or already held at the next breakpoint (its 20 ms pace may end before the reply reads it).
    const started = await services.control.resume(instanceId);
    expect(started.command).toBe("RESUME_GRAPH");
    expect(["running", "paused"]).toContain(started.status);
    await expect.poll(heldAt, { timeout: 30_000 }).toBe("publish");
    expect((await summary()).queued).toBeNull();
    await first.stop(1000);

    expect(await services.control.resume(instanceId)).toMatchObject({ command: "RESUME_GRAPH", status: "queued" });
    const queued = await summary();
    expect(queued).toMatchObject({ status: "paused", queued: { kind: "resume", since: expect.any(Number) } });
    expect(queued.queued!.since).toBeGreaterThan(Date.now() - 10_000);
    await expect(services.control.resume(instanceId)).rejects.toMatchObject({ code: "INVALID_STATE" });
    // Still queued after the refusal: nothing started it.
    expect((await summary()).queued).toMatchObject({ kind: "resume" });

    const startedNow = atRunStarted(services, instanceId);
    await startWorker(services, url);
    expect(await startedNow).toBeNull();
    await expect.poll(async () => (await summary()).status, { timeout: 30_000 }).toBe("completed");
    expect(await summary()).toMatchObject({ queued: null, result: [{ content: "published ITEM Q" }] });
  }, 120_000);

  it("a recover of a crashed instance and a deliver to a completed one, with no worker running, read queued in the summary and the list (a second recover and a reinvoke are refused); a worker starts both", async () => {
    const { services, url } = await webProcess();
    const first = await startWorker(services, url);
    const view = (instanceId: string) => services.instances.get({ instanceId, node: null });
    const listed = async (instanceId: string) => (await services.instances.page({})).items.find((r) => r.instanceId === instanceId);
    const done = (await services.commands.create({ spec: "paced-pipeline", input: "d" })).body.instanceId;
    const held = (await services.commands.create({ spec: "paced-pipeline", input: "c", breakpoints: ["publish"] })).body.instanceId;
    await expect.poll(async () => (await view(done)).summary.status, { timeout: 30_000 }).toBe("completed");
    await expect.poll(async () => (await view(held)).heldAt, { timeout: 30_000 }).toBe("publish");
    await first.stop(1000);
    // As a worker that died mid-run leaves it (its lease released): CRASHED, to be recovered.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanup.push(() => client.end());
    await client.query(`UPDATE graph_instances SET status = 'crashed', attrs = attrs - 'held_at' - 'breakpoints' WHERE instance_id = $1 AND is_latest`, [held]);
    expect((await listed(held))?.queued).toBeNull();

    expect(await services.control.recover(held)).toMatchObject({ command: "RECOVER", status: "queued" });
    expect((await view(held)).summary).toMatchObject({ status: "crashed", queued: { kind: "recover", since: expect.any(Number) } });
    expect(await listed(held)).toMatchObject({ status: "crashed", queued: { kind: "recover" } });
    await expect(services.control.recover(held)).rejects.toMatchObject({ code: "INVALID_STATE", message: expect.stringMatching(/recovery is already due/) });

    expect((await services.commands.deliver({ instanceId: done, node: "publish", content: "late" })).body).toMatchObject({ status: "queued", version: 2, pickup: "new_run" });
    expect((await view(done)).summary).toMatchObject({ status: "completed", queued: { kind: "deliver" } });
    expect(await listed(done)).toMatchObject({ status: "completed", version: 1, queued: { kind: "deliver" } });
    // Version 2 is due: a reinvoke now is refused, as one of the running instance the deliver makes.
    await expect(services.commands.reinvoke({ instanceId: done, input: "again" })).rejects.toMatchObject({ code: "INVALID_STATE" });
    // A second deliver joins the queued run (its mark stays the first one's).
    const since = (await view(done)).summary.queued!.since;
    expect((await services.commands.deliver({ instanceId: done, node: "publish", content: "later" })).body).toMatchObject({ status: "queued", pickup: "new_run" });
    expect((await view(done)).summary.queued).toEqual({ kind: "deliver", since });

    const started = [atRunStarted(services, held), atRunStarted(services, done)];
    await startWorker(services, url);
    expect(await Promise.all(started)).toEqual([null, null]);
    await expect.poll(async () => [(await view(held)).summary.status, (await view(done)).summary.status], { timeout: 30_000 }).toEqual(["completed", "completed"]);
    expect((await view(held)).summary).toMatchObject({ queued: null, result: [{ content: "published ITEM C" }] });
    expect((await view(done)).summary).toMatchObject({ queued: null, version: 2 });
    expect([(await listed(held))?.queued, (await listed(done))?.queued]).toEqual([null, null]);
  }, 120_000);

  it("an answer with no worker running reads queued with the answer recorded; a worker's start clears it", async () => {
    const { services, url } = await webProcess();
    const first = await startWorker(services, url);
    const { instanceId } = (await services.commands.create({ spec: "approval-gate", input: "v9" })).body;
    const view = () => services.instances.get({ instanceId, node: null });
    await expect.poll(async () => (await view()).summary.waiting, { timeout: 30_000 }).toBe(true);
    await first.stop(1000);

    expect((await services.commands.answer({ instanceId, value: "yes", by: "token" })).body).toMatchObject({ command: "ANSWER", status: "queued" });
    const queued = await view();
    // Waiting for nobody any more, as the list says: the view's summary and the list agree.
    expect(queued.summary).toMatchObject({ status: "paused", waiting: false, queued: { kind: "answer" } });
    expect(queued.summary.answers.at(-1)).toMatchObject({ node: "approve", value: "yes" });
    // The Instances list reads it from the same mark: under Paused, no longer "Waiting for you".
    const waiting = await services.instances.page({ waiting: true });
    expect([waiting.total, waiting.counts.waiting]).toEqual([0, 0]);
    expect((await services.instances.page({ status: "paused", waiting: false })).items).toMatchObject([{ instanceId, status: "paused", waiting: false, queued: { kind: "answer" } }]);
    await expect(services.commands.answer({ instanceId, value: "no", by: "token" })).rejects.toMatchObject({ code: "INVALID_STATE" });

    const started = atRunStarted(services, instanceId);
    await startWorker(services, url);
    expect(await started).toBeNull();
    await expect.poll(async () => (await view()).summary.status, { timeout: 30_000 }).toBe("completed");
    expect((await view()).summary).toMatchObject({ queued: null, waiting: false, result: [{ content: "published (answer: yes)" }] });
  }, 120_000);
});
