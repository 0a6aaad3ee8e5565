import { afterEach, describe, expect, it } from "vitest";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { httpReceiver } from "@/server/services/testing/http-receiver";
import { deliveryRecord, notificationRecord } from "@/server/services/testing/notification-store.conformance";
import { NotificationDispatcher } from "./notification-dispatcher";
import { PgNotificationStore } from "./pg-notification-store";

/** Two web processes on one PostgreSQL: each with its own pool, store and dispatcher. */
describe("notification outbox across processes", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function twoProcesses() {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const store = () => {
      const db = PgAppDatabase.open({ url: database.url, maxConnections: 4 });
      cleanup.push(() => db.close());
      return new PgNotificationStore(db);
    };
    return [store(), store()] as const;
  }

  it("both inserting the same status change's deliveries insert each once", async () => {
    const [a, b] = await twoProcesses();
    await a.create(notificationRecord("n1"));
    const rows = (id: string) => Array.from({ length: 10 }, (_, i) => deliveryRecord(`${id}-${i}`, { instanceId: `i-${i}` }));
    const added = await Promise.all([a.enqueue(rows("a")), b.enqueue(rows("b"))]);
    expect(added[0] + added[1]).toBe(10);
    expect(await a.deliveries("n1", 100)).toHaveLength(10);
  }, 30_000);

  it("two dispatchers draining the same outbox at once send each delivery once, and both see it delivered", async () => {
    await using receiver = await httpReceiver();
    const [a, b] = await twoProcesses();
    await a.create(notificationRecord("n1", { url: receiver.url }));
    const now = Date.now();
    await a.enqueue(Array.from({ length: 40 }, (_, i) => deliveryRecord(`d-${i}`, { instanceId: `i-${i}`, nextAttemptAt: now, createdAt: now })));
    const dispatcher = (store: PgNotificationStore) => new NotificationDispatcher({ store, retryDelaysMs: [50] });
    const [one, two] = [dispatcher(a), dispatcher(b)];
    const sent = await Promise.all([one.drain(), two.drain(), one.drain(), two.drain()]);
    expect(sent.reduce((x, y) => x + y, 0)).toBe(40);
    const ids = receiver.received.map((r) => r.headers["x-modex-delivery"]);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    const rows = await b.deliveries("n1", 100);
    expect(rows.every((d) => d.state === "delivered" && d.attempts === 1 && d.claimedUntil === null)).toBe(true);
  }, 30_000);
});
