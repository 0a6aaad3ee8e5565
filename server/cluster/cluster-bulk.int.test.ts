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
 * Bulk actions on a PostgreSQL cluster's web process: a filter is read through the PostgreSQL listing,
 * and each instance is archived or deleted through the cluster's control plane, as one is.
 */
describe("bulk actions on PostgreSQL", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it("archives and deletes every instance a filter matches, and nothing else", async () => {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const dataDir = mkdtempSync(path.join(tmpdir(), "modex-bulk-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = parseEnv({ DATABASE_URL: database.url, MODEX_ROLE: "web", MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40) });
    const services: AppServices = await createClusterAppServices({ url: database.url, env });
    cleanup.push(() => services.close?.());
    await startAppServices(services, { specsDir: env.specsDir, recover: false });
    const worker = await ClusterWorker.start({ url: database.url, graphs: specServiceCatalog(services.specs), leaseMs: 2000 });
    cleanup.push(() => worker.stop(1000));

    const create = async (spec: string) => (await services.commands.create({ spec, input: null })).body.instanceId;
    const maps = [await create("map-reduce"), await create("map-reduce"), await create("map-reduce")];
    const loop = await create("counter-loop");
    const { instances, bulk } = services;
    await expect.poll(async () => (await instances.page({ status: "completed" })).total, { timeout: 30_000 }).toBe(4);

    expect(await bulk.apply({ action: "archive", filter: { graph: "map-reduce", status: "completed" } })).toEqual({ action: "archive", matched: 3, done: 3, skipped: [] });
    expect((await instances.page({ archived: "only" })).items.map((r) => r.instanceId).sort()).toEqual([...maps].sort());
    expect(await bulk.apply({ action: "delete", filter: { archived: "only", q: maps[1] } })).toMatchObject({ matched: 1, done: 1 });
    expect(await bulk.apply({ action: "delete", filter: { archived: "only" } })).toMatchObject({ matched: 2, done: 2, skipped: [] });
    expect((await instances.page({ archived: "include" })).items.map((r) => r.instanceId)).toEqual([loop]);
    await expect(instances.get({ instanceId: maps[0] })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
