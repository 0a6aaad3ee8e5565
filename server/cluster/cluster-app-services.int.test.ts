import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { parseEnv } from "@/server/env";
import { startAppServices, type AppServices } from "@/server/services/app-services";
import { createClusterAppServices } from "./cluster-app-services";
import { ClusterWorker } from "./cluster-worker";
import { specServiceCatalog } from "./spec-service-catalog";

/**
 * The app's services in a web process of a PostgreSQL cluster (MODEX_ROLE=web): every store on
 * PostgreSQL, creates and control as jobs, live events from LISTEN; a worker (here in the test's
 * process, as `npm run worker` runs one) does the work.
 */
describe("the app's services on PostgreSQL, web role", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function webProcess(): Promise<{ services: AppServices; database: PgTestDatabase }> {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const dataDir = mkdtempSync(path.join(tmpdir(), "modex-web-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = parseEnv({ DATABASE_URL: database.url, MODEX_ROLE: "web", MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40) });
    const services = await createClusterAppServices({ url: database.url, env });
    cleanup.push(() => services.close?.());
    await startAppServices(services, { specsDir: env.specsDir, recover: false });
    return { services, database };
  }

  it("saves the spec folder to PostgreSQL, creates on the web side, a worker runs it, and the web side reads it back", async () => {
    const { services, database } = await webProcess();
    const names = (await services.specs.list()).map((s) => s.name);
    expect(names).toContain("paced-pipeline");
    const worker = await ClusterWorker.start({ url: database.url, graphs: specServiceCatalog(services.specs), leaseMs: 2000 });
    cleanup.push(() => worker.stop(1000));
    const seen: string[] = [];
    const created = await services.commands.create({ spec: "paced-pipeline", input: "pg" }, "key-1");
    const { instanceId } = created.body;
    services.bus.subscribe(instanceId, (e) => seen.push(e.event.type));
    const repeat = await services.commands.create({ spec: "paced-pipeline", input: "pg" }, "key-1");
    expect(repeat).toMatchObject({ replayed: true, body: { instanceId } });
    await expect.poll(async () => (await services.instances.get({ instanceId })).summary.status, { timeout: 20_000 }).toBe("completed");
    expect((await services.instances.get({ instanceId })).summary.result).toEqual([{ content: "published ITEM PG", source: "publish" }]);
    await expect.poll(() => seen.at(-1), { timeout: 5_000 }).toBe("run_finished");
    const logged = await services.instances.events({ instanceId });
    expect(logged.at(-1)?.event.type).toBe("run_finished");
    const list = await services.instances.list({});
    expect(list.map((i) => i.instanceId)).toContain(instanceId);
  }, 90_000);

  it("a web process that closes while it fires a schedule waits for that fire: its run is made, the schedule moves on past it, nothing fails", async () => {
    const { services, database } = await webProcess();
    // The fire's run is being made (the create held at a gate) when the process closes.
    let held = false;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    cleanup.push(() => release());
    const create = services.commands.create.bind(services.commands);
    services.commands.create = async (...args) => ((held = true), await gate, create(...args));
    await services.triggers.schedules.save({ name: "tick", spec: "paced-pipeline", cron: "* * * * * *", overlap: "allow", input: "s" });
    await expect.poll(() => held, { timeout: 10_000 }).toBe(true);
    const errors = vi.spyOn(console, "error");
    try {
      const closing = services.close!();
      await new Promise((r) => setTimeout(r, 300)); // the close is under way
      release();
      await closing;
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const [row] = (await client.query("SELECT last_fire_at, last_outcome, next_fire_at FROM trigger_schedules WHERE name = 'tick'")).rows;
      expect(row.last_outcome).toBe("started");
      expect(row.next_fire_at.getTime()).toBeGreaterThan(row.last_fire_at.getTime());
      expect((await client.query("SELECT count(*)::int AS n FROM graph_instances WHERE is_latest")).rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
    }
  }, 90_000);
});

