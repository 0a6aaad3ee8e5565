import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { createAppServices, startAppServices } from "./app-services";
import { AuthService } from "./auth-service";
import { startCrashChild } from "./testing/crash-child-process";

const BACKOFF_MS = 1_500;
// `slow` always times out: three attempts, 1.5 s apart, then the run fails.
const SPEC = `
name: backoff-restart
nodes:
  - name: slow
    node_type: delay
    config: { ms: 400 }
    timeout_ms: 20
    retry: { max_attempts: 3, initial_interval_ms: ${BACKOFF_MS}, backoff: 1, retry_on: [timed out] }
  - { name: done, node_type: function, config: { op: template, template: "done {{input}}" } }
edges:
  - { from: __start__, to: slow }
  - { from: slow, to: done }
  - { from: done, to: __end__ }
`;

interface Logged {
  type: string;
  node?: string;
  attempt?: number;
  retryInMs?: number;
}

describe("a restart during a retry backoff", () => {
  it("waits out the rest of the backoff and counts attempts on from the one that failed", { timeout: 60_000 }, async () => {
    using temp = new TempDatabase();
    temp.db.close();
    const child = await startCrashChild<{ instanceId: string }>({ database: temp, spec: SPEC });
    const { instanceId } = child.started;

    // Kill the server in the first backoff, right after the first attempt's failure is committed.
    const reader = new BetterSqlite3(temp.file, { readonly: true });
    const failedAt = () =>
      reader.prepare(`SELECT created_at AS at FROM engine_events WHERE instance_id = ? AND type = 'node_failed' ORDER BY id LIMIT 1`).get(instanceId) as { at: number } | undefined;
    for (let i = 0; i < 400 && !failedAt(); i++) await sleep(10);
    const first = failedAt();
    expect(first).toBeDefined();
    // The backoff is in the instance's attrs once the failure is announced (same stretch).
    await sleep(30);
    await child.killHard();
    reader.close();

    const db = temp.reopen();
    const services = createAppServices({ db, auth: new AuthService("crash-test-token-0123456789abcdefghij"), heartbeatMs: 0, exclusive: true });
    const restartedAt = Date.now();
    expect(restartedAt - first!.at).toBeLessThan(BACKOFF_MS - 300);
    const report = await startAppServices(services, {});
    services.recovery.stop();
    services.triggers.end();
    expect(report.recovered).toEqual([instanceId]);
    await services.orchestrator.settled(instanceId);

    const events = (await services.events.list(instanceId));
    const slow = events.filter((e) => (e.event as Logged).node === "slow");
    const failures = slow.filter((e) => e.event.type === "node_failed").map((e) => e.event as Logged);
    // Attempt 2 and 3 follow attempt 1 (not a fresh attempt 1 after the restart); the run then fails.
    expect(failures.map((f) => [f.attempt, f.retryInMs])).toEqual([[1, BACKOFF_MS], [2, BACKOFF_MS], [undefined, undefined]]);
    // The second attempt started when the first backoff was due, not at the restart.
    const secondStart = slow.filter((e) => e.event.type === "node_started")[1];
    expect(secondStart.at).toBeGreaterThanOrEqual(first!.at + BACKOFF_MS - 50);
    expect((await services.orchestrator.coordinator.instances.load(instanceId))?.status).toBe("failed");
    expect((await services.orchestrator.coordinator.instances.load(instanceId))?.attrs.retry_backoffs ?? null).toBeNull();
  });
});
