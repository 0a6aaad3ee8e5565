import { afterEach, describe, expect, it } from "vitest";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { PgEventLog } from "@/server/services/pg-event-log";
import { httpReceiver } from "@/server/services/testing/http-receiver";
import { notificationRecord } from "@/server/services/testing/notification-store.conformance";
import { catchUpNotifications } from "./notification-catch-up";
import { NotificationDispatcher } from "./notification-dispatcher";
import { PgNotificationStore } from "./pg-notification-store";

/**
 * The catch-up on PostgreSQL: runs whose status changes committed with no outbox row (no listener heard
 * them, as when the process died in between), then two web processes catching up at once.
 */
describe("notification catch-up on PostgreSQL", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function setUp() {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const instances = new PgGraphInstanceStore(database.open());
    const process = () => {
      const db = PgAppDatabase.open({ url: database.url, maxConnections: 4 });
      cleanup.push(() => db.close());
      const store = new PgNotificationStore(db);
      const catchUp = () => catchUpNotifications({ store, load: async (id) => instances.load(id), publicUrl: "https://modex.example.com" });
      return { store, events: new PgEventLog(db), catchUp };
    };
    return { instances, process };
  }

  it("sends a run completed after the notification was made once, across processes and restarts; never one completed before", async () => {
    await using receiver = await httpReceiver();
    const { instances, process } = await setUp();
    const a = process();
    const complete = async () => {
      const run = await instances.create({ graphName: "nightly", nodeIdMap: {}, input: { content: "x" } });
      await instances.transition(run.instanceId, "completed");
      await a.events.append({ instanceId: run.instanceId, version: 1, event: { type: "instance_status", instanceId: run.instanceId, version: 1, from: "running", to: "completed" } });
      return run.instanceId;
    };
    const pause = () => new Promise((r) => setTimeout(r, 10));
    const older = await complete();
    await pause();
    await a.store.create(notificationRecord("n1", { url: receiver.url, events: ["completed"], createdAt: Date.now() }));
    await pause();
    const newer = await complete();

    const b = process();
    const added = await Promise.all([a.catchUp(), b.catchUp()]);
    expect(added[0] + added[1]).toBe(1);
    expect((await b.store.deliveries("n1", 10)).map((d) => d.instanceId)).toEqual([newer]);
    expect(await new NotificationDispatcher({ store: b.store, retryDelaysMs: [50] }).drain()).toBe(1);
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    expect(bodies).toEqual([expect.objectContaining({ event: "completed", instance_id: newer, graph: "nightly", version: 1 })]);
    expect(bodies.some((body) => body.instance_id === older)).toBe(false);

    const restarted = process();
    expect(await restarted.catchUp()).toBe(0);
    expect(await new NotificationDispatcher({ store: restarted.store, retryDelaysMs: [50] }).drain()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    expect((await restarted.store.deliveries("n1", 10)).map((d) => d.state)).toEqual(["delivered"]);
    expect(await restarted.store.watermark()).toBeGreaterThan(0);
  }, 30_000);
});
