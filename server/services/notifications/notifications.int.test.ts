import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAppServices } from "@/server/services/app-services";
import { AuthService } from "@/server/services/auth-service";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { openGraphDatabase } from "@/server/db/graph-database";
import { httpReceiver } from "@/server/services/testing/http-receiver";
import { quickSpec } from "@/server/services/testing/run-specs";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";

/** Outgoing notifications through the app's services on a real SQLite file, to a real HTTP receiver. */

const FAST = { retryDelaysMs: [50, 50, 50, 50], pollMs: 20 };

/** A run that fails at once: its only node times out and is not retried. */
const failingSpec = (name: string) => `name: ${name}
nodes:
  - { name: slow, node_type: delay, config: { ms: 500 }, timeout_ms: 10 }
edges:
  - { from: __start__, to: slow }
  - { from: slow, to: __end__ }
`;

const verify = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

async function runToEnd(t: TestServices, spec: string, input: unknown = "x") {
  const { body } = await t.services.commands.create({ spec, input });
  const settled = await t.settled(body.instanceId);
  await t.services.notifications.watcher.idle();
  return { instanceId: body.instanceId, status: settled.status };
}

describe("notifications", () => {
  it("a failed run is POSTed once, signed with the notification's secret, with the documented headers and body", async () => {
    await using receiver = await httpReceiver();
    await using t = testServices("sqlite", undefined, { notificationDispatch: FAST, publicUrl: "https://modex.example.com/" });
    t.services.notifications.begin();
    await t.services.specs.save(failingSpec("breaks"));
    const made = await t.services.notifications.service.create({ url: receiver.url, events: ["failed"] });
    const run = await runToEnd(t, "breaks");
    expect(run.status).toBe("failed");
    const [got] = await receiver.waitFor(1);
    const body = JSON.parse(got.body);
    expect(body).toEqual({
      event: "failed",
      instance_id: run.instanceId,
      graph: "breaks",
      version: 1,
      status: "failed",
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      url_to_run: `https://modex.example.com/instances/${run.instanceId}`,
      error: expect.stringContaining("timed out"),
    });
    expect(got.headers["x-modex-signature"]).toBe(verify(made.secret, got.body));
    expect(got.headers["x-modex-event"]).toBe("failed");
    expect(got.headers["content-type"]).toBe("application/json");
    const [delivery] = await t.services.notifications.service.deliveries(made.id);
    expect(got.headers["x-modex-delivery"]).toBe(delivery.id);
    await until(async () => (await t.services.notifications.service.deliveries(made.id))[0].state === "delivered");
    expect((await t.services.notifications.service.deliveries(made.id))[0]).toMatchObject({ state: "delivered", attempts: 1, lastStatus: 200, lastError: null });
    // The event heard again (a replay, another process's bus) adds no second delivery.
    const stored = (await t.services.events.list(run.instanceId)).find((e) => e.event.type === "instance_status" && e.event.to === "failed")!;
    t.services.notifications.watcher.observe(stored);
    await t.services.notifications.watcher.idle();
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.received).toHaveLength(1);
    expect(await t.services.notifications.service.deliveries(made.id)).toHaveLength(1);
  });

  it("a receiver answering 500 then 200 is tried again after the backoff, and the delivery records both attempts", async () => {
    await using receiver = await httpReceiver([500, 200]);
    await using t = testServices("sqlite", undefined, { notificationDispatch: FAST });
    t.services.notifications.begin();
    await t.services.specs.save(quickSpec("quick"));
    const made = await t.services.notifications.service.create({ url: receiver.url, events: ["completed"] });
    const run = await runToEnd(t, "quick");
    expect(run.status).toBe("completed");
    const got = await receiver.waitFor(2);
    expect(got[0].headers["x-modex-delivery"]).toBe(got[1].headers["x-modex-delivery"]);
    await until(async () => (await t.services.notifications.service.deliveries(made.id))[0].state === "delivered");
    const [d] = await t.services.notifications.service.deliveries(made.id);
    expect(d).toMatchObject({ attempts: 2, lastStatus: 200 });
    expect(d.attemptLog.map((a) => [a.status, a.error])).toEqual([[500, "HTTP 500 Internal Server Error"], [200, null]]);
  });

  it("a receiver that never answers 2xx is given up after the last retry; an unreachable one records why", async () => {
    await using receiver = await httpReceiver([503]);
    await using t = testServices("sqlite", undefined, { notificationDispatch: { ...FAST, retryDelaysMs: [20, 20] } });
    t.services.notifications.begin();
    const failing = await t.services.notifications.service.create({ url: receiver.url, events: ["completed"] });
    const gone = await httpReceiver();
    await gone[Symbol.asyncDispose](); // its port now refuses connections
    const refused = await t.services.notifications.service.create({ url: gone.url, events: ["completed"] });
    await t.services.specs.save(quickSpec("quick"));
    await runToEnd(t, "quick");
    await until(async () => (await t.services.notifications.service.deliveries(failing.id))[0]?.state === "failed");
    expect((await t.services.notifications.service.deliveries(failing.id))[0]).toMatchObject({ attempts: 3, lastStatus: 503 });
    expect(receiver.received).toHaveLength(3);
    await until(async () => (await t.services.notifications.service.deliveries(refused.id))[0]?.state === "failed");
    expect((await t.services.notifications.service.deliveries(refused.id))[0].lastError).toMatch(/ECONNREFUSED/);
  });

  it("a pending delivery left by a process that stopped before sending it is sent after the restart", async () => {
    await using receiver = await httpReceiver();
    using temp = new TempDatabase();
    const options = { auth: new AuthService(TEST_TOKEN), heartbeatMs: 0, notificationDispatch: FAST };
    const before = createAppServices({ db: temp.db, ...options });
    await before.notifications.dispatcher.stop(); // this process never sends: as if it died right after the outbox commit
    await before.specs.save(quickSpec("quick"));
    const made = await before.notifications.service.create({ url: receiver.url, events: ["completed"] });
    const { body } = await before.commands.create({ spec: "quick", input: "x" });
    await before.orchestrator.settled(body.instanceId);
    await before.notifications.watcher.idle();
    expect((await before.notifications.service.deliveries(made.id)).map((d) => d.state)).toEqual(["pending"]);
    await before.orchestrator.drainAll();
    expect(receiver.received).toHaveLength(0);

    const db = openGraphDatabase(temp.file); // the restarted process's own connection
    try {
      const after = createAppServices({ db, ...options });
      after.notifications.begin();
      const [got] = await receiver.waitFor(1);
      expect(JSON.parse(got.body)).toMatchObject({ event: "completed", instance_id: body.instanceId });
      await until(async () => (await after.notifications.service.deliveries(made.id))[0].state === "delivered");
      await after.notifications.end();
    } finally {
      db.close();
    }
  });

  it("each notification hears only its events and its graph; a disabled one hears nothing; waiting is a pause for a person", async () => {
    await using receiver = await httpReceiver();
    await using t = testServices("sqlite", undefined, { notificationDispatch: FAST });
    t.services.notifications.begin();
    const { service } = t.services.notifications;
    await t.services.specs.save(failingSpec("breaks"));
    await t.services.specs.save(quickSpec("quick"));
    const onlyBreaks = await service.create({ url: `${receiver.url}?n=breaks`, events: ["failed", "completed"], graph: "breaks" });
    const completions = await service.create({ url: `${receiver.url}?n=done`, events: ["completed"] });
    const waits = await service.create({ url: `${receiver.url}?n=waits`, events: ["waiting"] });
    const off = await service.create({ url: `${receiver.url}?n=off`, events: ["completed", "failed", "waiting"] });
    await service.setEnabled(off.id, false);
    await runToEnd(t, "breaks");
    await runToEnd(t, "quick");
    const { body } = await t.services.commands.create({ spec: "approval-gate", input: "deploy" });
    await t.waitForEvent(body.instanceId, (e) => e.event.type === "instance_status" && e.event.to === "paused");
    await t.services.notifications.watcher.idle();
    await receiver.waitFor(3);
    await new Promise((r) => setTimeout(r, 150));
    const seen = receiver.received.map((r) => JSON.parse(r.body)).map((b) => `${b.graph}:${b.event}`).sort();
    expect(seen).toEqual(["approval-gate:waiting", "breaks:failed", "quick:completed"]);
    expect((await service.deliveries(onlyBreaks.id)).map((d) => d.event)).toEqual(["failed"]);
    expect((await service.deliveries(completions.id)).map((d) => d.event)).toEqual(["completed"]);
    expect((await service.deliveries(waits.id)).map((d) => d.event)).toEqual(["waiting"]);
    expect(await service.deliveries(off.id)).toEqual([]);
    await t.services.control.stop(body.instanceId);
  });

  it("refuses a bad URL, no events, an unknown event or graph with a typed error that says what is wrong; test sends a signed test delivery", async () => {
    await using receiver = await httpReceiver();
    await using t = testServices("memory", undefined, { notificationDispatch: FAST });
    const { service } = t.services.notifications;
    await expect(service.create({ url: "ftp://example.com", events: ["failed"] })).rejects.toMatchObject({ code: "BAD_REQUEST", message: "url must be http:// or https://, not ftp://" });
    await expect(service.create({ url: "example.com/hook", events: ["failed"] })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("is not a URL") });
    await expect(service.create({ url: receiver.url, events: [] })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("events is empty") });
    await expect(service.create({ url: receiver.url, events: ["done"] })).rejects.toMatchObject({ code: "BAD_REQUEST", message: "unknown event done: events are completed, failed, stopped, waiting" });
    await expect(service.create({ url: receiver.url, events: ["failed"], graph: "no-such-graph" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(service.test("ntf_missing")).rejects.toMatchObject({ code: "NOT_FOUND" });
    const made = await service.create({ url: receiver.url, events: ["failed"] });
    expect(await service.list()).toEqual([{ id: made.id, url: receiver.url, events: ["failed"], graph: null, enabled: true, createdAt: made.createdAt }]);
    const tested = await service.test(made.id);
    expect(tested).toMatchObject({ event: "test", state: "delivered", attempts: 1, lastStatus: 200 });
    const [got] = receiver.received;
    expect(got.headers["x-modex-event"]).toBe("test");
    expect(got.headers["x-modex-signature"]).toBe(verify(made.secret, got.body));
    await t.services.notifications.end();
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}
