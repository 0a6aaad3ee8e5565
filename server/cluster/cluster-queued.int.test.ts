import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { parseEnv } from "@/server/env";
import { startAppServices, type AppServices } from "@/server/services/app-services";
import { createClusterAppServices } from "./cluster-app-services";
import { ClusterWorker } from "./cluster-worker";
import { specServiceCatalog } from "./spec-service-catalog";

/**
 * A web process's instance summary says when work it accepted is queued: a resume or an answer that no
 * worker has started (the reply was `queued`) reads `queued` until a worker starts the run, and clears
 * by the time the run's `run_started` reaches the web process's live feed (what the instance view waits on).
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

  it("an answer with no worker running reads queued with the answer recorded; a worker's start clears it", async () => {
    const { services, url } = await webProcess();
    const first = await startWorker(services, url);
    const { instanceId } = (await services.commands.create({ spec: "approval-gate", input: "v9" })).body;
    const view = () => services.instances.get({ instanceId, node: null });
    await expect.poll(async () => (await view()).summary.waiting, { timeout: 30_000 }).toBe(true);
    await first.stop(1000);

    expect((await services.commands.answer({ instanceId, value: "yes", by: "token" })).body).toMatchObject({ command: "ANSWER", status: "queued" });
    const queued = await view();
    expect(queued.summary).toMatchObject({ status: "paused", queued: { kind: "answer" } });
    expect(queued.summary.answers.at(-1)).toMatchObject({ node: "approve", value: "yes" });
    await expect(services.commands.answer({ instanceId, value: "no", by: "token" })).rejects.toMatchObject({ code: "INVALID_STATE" });

    const started = atRunStarted(services, instanceId);
    await startWorker(services, url);
    expect(await started).toBeNull();
    await expect.poll(async () => (await view()).summary.status, { timeout: 30_000 }).toBe("completed");
    expect((await view()).summary).toMatchObject({ queued: null, waiting: false, result: [{ content: "published (answer: yes)" }] });
  }, 120_000);
});
