import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { createAppServices, startAppServices } from "./app-services";
import { AuthService } from "./auth-service";
import { startCrashChild } from "./testing/crash-child-process";
import { slowChainSpec } from "./testing/slow-chain-spec";

const SPEC = slowChainSpec("crash-chain", 150);

describe("a server process killed mid-run", () => {
  it("leaves a RUNNING instance that the next start marks CRASHED and recovers to the same result", { timeout: 60_000 }, async () => {
    using temp = new TempDatabase();
    temp.db.close();
    const child = await startCrashChild<{ instanceId: string }>({ database: temp, spec: SPEC });
    const { instanceId } = child.started;

    // Watch the log from another connection (WAL: readers never block the writer); kill inside d2.
    const reader = new BetterSqlite3(temp.file, { readonly: true });
    const started = (node: string) =>
      reader.prepare(`SELECT COUNT(*) AS n FROM engine_events WHERE instance_id = ? AND type = 'node_started' AND payload LIKE ?`).get(instanceId, `%"node":"${node}"%`) as { n: number };
    for (let i = 0; i < 400 && started("d2").n === 0; i++) await sleep(25);
    expect(started("d2").n).toBe(1);
    await child.killHard();
    reader.close();

    const db = temp.reopen();
    const services = createAppServices({ db, auth: new AuthService("crash-test-token-0123456789abcdefghij"), heartbeatMs: 0, exclusive: true });
    expect((await services.orchestrator.coordinator.instances.load(instanceId))?.status).toBe("running");
    const report = await startAppServices(services, {});
    services.recovery.stop();
    services.triggers.end();
    expect(report).toMatchObject({ crashed: [instanceId], recovered: [instanceId] });
    await services.orchestrator.settled(instanceId);

    const view = await services.instances.get({ instanceId });
    expect(view.summary.status).toBe("completed");
    expect(view.summary.result?.map((p) => p.content)).toEqual(["published item x"]);
    const runs = (node: string) => view.invocations.filter((i) => i.node === node).map((i) => i.status);
    expect(runs("fetch")).toEqual(["COMPLETED"]); // finished before the kill: not run again
    expect(runs("d1")).toEqual(["COMPLETED"]);
    expect(runs("d2")).toEqual(["CRASHED", "COMPLETED"]); // orphaned by the kill, re-run from its claimed input
    expect(runs("publish")).toEqual(["COMPLETED"]);
    expect(view.delivers.every((d) => d.status === "CONSUMED_COMPLETED")).toBe(true);
    const types = (await services.events.list(instanceId)).map((e) => e.event);
    expect(types).toContainEqual(expect.objectContaining({ type: "instance_status", from: "running", to: "crashed" }));
    expect(types).toContainEqual(expect.objectContaining({ type: "run_started", mode: "recovery", seeds: ["d2"] }));
    await services.orchestrator.idle();
  });
});

describe("a pause or stop answered while the run drained, then a crash", () => {
  it.each(["pause", "stop"] as const)("is not forgotten: recovery ends the instance as asked (%s), not completed", { timeout: 60_000 }, async (command) => {
    using temp = new TempDatabase();
    temp.db.close();
    const child = await startCrashChild<{ instanceId: string; asked: { status: string; draining: boolean } }>({ database: temp, spec: slowChainSpec("drain-chain", 2_000), command });
    const { instanceId, asked } = child.started;
    // The answer came while d1 still waited: the run was draining, nothing was paused yet.
    expect(asked).toMatchObject({ status: "running", draining: true });
    await child.killHard();

    const db = temp.reopen();
    const services = createAppServices({ db, auth: new AuthService("crash-test-token-0123456789abcdefghij"), heartbeatMs: 0, exclusive: true });
    await startAppServices(services, {});
    services.recovery.stop();
    services.triggers.end();
    await services.orchestrator.settled(instanceId);
    const after = (await services.orchestrator.coordinator.instances.load(instanceId))!;
    expect(after.status).toBe(command === "pause" ? "paused" : "stopped");
    if (command === "pause") {
      // Resume is a new start: the request is done with, and the run completes.
      await services.control.resume(instanceId);
      await services.orchestrator.settled(instanceId);
      expect((await services.orchestrator.coordinator.instances.load(instanceId))?.status).toBe("completed");
      expect((await services.orchestrator.coordinator.instances.load(instanceId))?.attrs.control_request).toBeNull();
    }
    await services.orchestrator.idle();
  });
});
