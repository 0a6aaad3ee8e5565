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
});
