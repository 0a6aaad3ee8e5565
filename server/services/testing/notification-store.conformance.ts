import { expect, it } from "vitest";
import type { DeliveryRecord, NotificationRecord } from "../notifications/notification-records";
import type { NotificationStore } from "../notifications/notification-store";

const T = Date.UTC(2026, 11, 4, 12, 0, 0, 123);

export const notificationRecord = (id: string, overrides: Partial<NotificationRecord> = {}): NotificationRecord => ({
  id,
  url: "https://example.com/hook",
  events: ["failed", "waiting"],
  graph: null,
  enabled: true,
  secret: "s3cret",
  createdAt: T,
  ...overrides,
});

export const deliveryRecord = (id: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  id,
  notificationId: "n1",
  instanceId: "i-1",
  version: 1,
  event: "failed",
  body: '{"event":"failed"}',
  state: "pending",
  attempts: 0,
  nextAttemptAt: T,
  claimedUntil: null,
  lastStatus: null,
  lastError: null,
  attemptLog: [],
  createdAt: T,
  updatedAt: T,
  ...overrides,
});

/** The NotificationStore contract, run on the in-memory, SQLite and PostgreSQL stores (each test on empty tables). */
export function notificationStoreConformance(fresh: () => Promise<NotificationStore>): void {
  it("create then get and list: every field as written, oldest first; an unknown id is null", async () => {
    const store = await fresh();
    const a = notificationRecord("n1", { graph: "nightly", events: ["completed", "failed", "stopped", "waiting"] });
    const b = notificationRecord("n2", { createdAt: T + 1, enabled: false, events: ["waiting"] });
    await store.create(b);
    await store.create(a);
    expect(await store.get("n1")).toEqual(a);
    expect(await store.list()).toEqual([a, b]);
    expect(await store.get("nope")).toBeNull();
  });

  it("setEnabled and remove say whether the notification was there; remove takes its deliveries", async () => {
    const store = await fresh();
    await store.create(notificationRecord("n1"));
    await store.enqueue([deliveryRecord("d1")]);
    expect(await store.setEnabled("n1", false)).toBe(true);
    expect((await store.get("n1"))!.enabled).toBe(false);
    expect(await store.setEnabled("nope", true)).toBe(false);
    expect(await store.remove("n1")).toBe(true);
    expect(await store.remove("n1")).toBe(false);
    expect(await store.deliveries("n1", 10)).toEqual([]);
  });

  it("enqueue adds a row once per notification, instance, version and event: a replay adds nothing", async () => {
    const store = await fresh();
    await store.create(notificationRecord("n1"));
    expect(await store.enqueue([deliveryRecord("d1"), deliveryRecord("d2", { event: "waiting" })])).toBe(2);
    expect(await store.enqueue([deliveryRecord("d3"), deliveryRecord("d4", { version: 2 })])).toBe(1);
    const rows = await store.deliveries("n1", 10);
    expect(rows.map((d) => d.id).sort()).toEqual(["d1", "d2", "d4"]);
    expect(rows.find((d) => d.id === "d1")).toEqual(deliveryRecord("d1"));
  });

  it("claim hands out due, unclaimed pending rows once until the claim lapses; settle records the attempt and releases it", async () => {
    const store = await fresh();
    await store.create(notificationRecord("n1"));
    await store.enqueue([
      deliveryRecord("due", { nextAttemptAt: T }),
      deliveryRecord("later", { instanceId: "i-2", nextAttemptAt: T + 10_000 }),
      deliveryRecord("done", { instanceId: "i-3", state: "delivered" }),
    ]);
    const first = await store.claim({ now: T + 1, until: T + 60_000, limit: 10 });
    expect(first.map((d) => [d.id, d.claimedUntil])).toEqual([["due", T + 60_000]]);
    expect(await store.claim({ now: T + 2, until: T + 60_000, limit: 10 })).toEqual([]);
    const attempt = { at: T + 3, status: 500, error: "HTTP 500" };
    // A settle under another claim than the row's is refused (a lapsed claim taken over).
    expect(await store.settle("due", T + 1, { state: "delivered", attempts: 1, nextAttemptAt: T, lastStatus: 200, lastError: null, attemptLog: [], updatedAt: T })).toBe(false);
    expect(await store.settle("due", T + 60_000, { state: "pending", attempts: 1, nextAttemptAt: T + 5_000, lastStatus: 500, lastError: "HTTP 500", attemptLog: [attempt], updatedAt: T + 4 })).toBe(true);
    expect(await store.claim({ now: T + 4_999, until: T + 90_000, limit: 10 })).toEqual([]);
    const again = await store.claim({ now: T + 5_000, until: T + 90_000, limit: 10 });
    expect(again).toEqual([deliveryRecord("due", { attempts: 1, nextAttemptAt: T + 5_000, claimedUntil: T + 90_000, lastStatus: 500, lastError: "HTTP 500", attemptLog: [attempt], updatedAt: T + 4 })]);
    // A claim whose process died lapses: the row is claimed again after it (with "later", due by now).
    expect((await store.claim({ now: T + 90_001, until: T + 150_000, limit: 10 })).map((d) => d.id)).toEqual(["due", "later"]);
  });

  it("deliveries: newest first, at most `limit`, only the notification's", async () => {
    const store = await fresh();
    await store.create(notificationRecord("n1"));
    await store.create(notificationRecord("n2"));
    await store.enqueue([1, 2, 3].map((i) => deliveryRecord(`d${i}`, { instanceId: `i-${i}`, createdAt: T + i })));
    await store.enqueue([deliveryRecord("other", { notificationId: "n2" })]);
    expect((await store.deliveries("n1", 2)).map((d) => d.id)).toEqual(["d3", "d2"]);
  });
}
