import { describe, expect, it } from "vitest";
import { createAppServices, type AppServices } from "@/server/services/app-services";
import { AuthService } from "@/server/services/auth-service";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { openGraphDatabase } from "@/server/db/graph-database";
import { httpReceiver } from "@/server/services/testing/http-receiver";
import { quickSpec } from "@/server/services/testing/run-specs";
import { TEST_TOKEN } from "@/server/services/testing/test-services";

/**
 * The catch-up on a real SQLite file: a process whose listener is gone (`end()` before the run) commits a
 * run's status change without its outbox rows, as one that died in between would; the next process over
 * the same database sends what is missing, once.
 */

const options = { auth: new AuthService(TEST_TOKEN), heartbeatMs: 0, notificationDispatch: { retryDelaysMs: [50], pollMs: 20 } };

/** A process that hears nothing: its status changes commit, its outbox stays as it was. */
async function deafProcess(temp: TempDatabase): Promise<AppServices> {
  const services = createAppServices({ db: temp.db, ...options });
  await services.notifications.end();
  await services.specs.save(quickSpec("quick"));
  return services;
}

async function runToEnd(services: AppServices): Promise<string> {
  const { body } = await services.commands.create({ spec: "quick", input: "x" });
  await services.orchestrator.settled(body.instanceId);
  await services.notifications.watcher.idle();
  return body.instanceId;
}

/** A restarted process (its own connection) over the same file, begun; `fn` runs once its first catch-up is done. */
async function restarted(temp: TempDatabase, fn: (services: AppServices, added: number) => Promise<void>): Promise<void> {
  const db = openGraphDatabase(temp.file);
  const services = createAppServices({ db, ...options });
  try {
    services.notifications.begin();
    await fn(services, await services.notifications.catchUp());
  } finally {
    await services.notifications.end();
    db.close();
  }
}

const quiet = () => new Promise((r) => setTimeout(r, 200));

describe("notification catch-up", () => {
  it("a run that completed with no outbox row written is POSTed once after a restart, and not again after the next", async () => {
    await using receiver = await httpReceiver();
    using temp = new TempDatabase();
    const before = await deafProcess(temp);
    const made = await before.notifications.service.create({ url: receiver.url, events: ["completed"] });
    const instanceId = await runToEnd(before);
    expect(await before.notifications.service.deliveries(made.id)).toEqual([]);
    await before.orchestrator.drainAll();

    await restarted(temp, async (after, added) => {
      expect(added).toBe(1);
      const [got] = await receiver.waitFor(1);
      expect(JSON.parse(got.body)).toMatchObject({ event: "completed", instance_id: instanceId, graph: "quick", version: 1, status: "completed" });
      await until(async () => (await after.notifications.service.deliveries(made.id))[0]?.state === "delivered");
    });
    await restarted(temp, async (_, added) => {
      expect(added).toBe(0);
      await quiet();
    });
    expect(receiver.received).toHaveLength(1);
  });

  it("a run that finished before the notification was made is not POSTed after a restart", async () => {
    await using receiver = await httpReceiver();
    using temp = new TempDatabase();
    const before = await deafProcess(temp);
    await runToEnd(before);
    const made = await before.notifications.service.create({ url: receiver.url, events: ["completed"] });
    await before.orchestrator.drainAll();

    await restarted(temp, async (after, added) => {
      expect(added).toBe(0);
      await quiet();
      expect(await after.notifications.service.deliveries(made.id)).toEqual([]);
    });
    expect(receiver.received).toHaveLength(0);
  });

  it("a delivery the listener wrote and sent is not sent again after a restart", async () => {
    await using receiver = await httpReceiver();
    using temp = new TempDatabase();
    const before = createAppServices({ db: temp.db, ...options });
    before.notifications.begin();
    await before.specs.save(quickSpec("quick"));
    const made = await before.notifications.service.create({ url: receiver.url, events: ["completed"] });
    await runToEnd(before);
    await receiver.waitFor(1);
    await until(async () => (await before.notifications.service.deliveries(made.id))[0]?.state === "delivered");
    await before.notifications.end();
    await before.orchestrator.drainAll();

    await restarted(temp, async (after, added) => {
      expect(added).toBe(0);
      await quiet();
      expect((await after.notifications.service.deliveries(made.id)).map((d) => d.state)).toEqual(["delivered"]);
    });
    expect(receiver.received).toHaveLength(1);
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}
