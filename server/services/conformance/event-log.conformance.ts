import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EngineEvent } from "@/server/graph/events";
import { newId, type ConformanceOptions, type MakeSubject } from "@/server/graph/persistence/conformance/harness";
import { EventBus } from "../event-bus";
import type { EventLog, StoredEvent } from "../event-log";
import { EventRecorder } from "../event-recorder";

export interface EventLogSubject {
  log: EventLog;
  /**
   * The same log as another connection sees it (what is committed), for durable backends; the in-memory
   * log has none.
   */
  committed?: EventLog;
}

const status = (instanceId: string, version = 1): EngineEvent => ({ type: "instance_status", instanceId, version, from: null, to: "running" });
const drained = (instanceId: string, n: number): EngineEvent => ({ type: "drained", instanceId, version: 1, reason: `r${n}` }) as unknown as EngineEvent;

/**
 * The EventLog contract: ids increase in the order of the `append` calls, an instance's events list in
 * that order from any id on and by version, events read back as written, and `whenDurable` runs in
 * order once what was appended before it is committed. An EventRecorder over it announces every event
 * once, in order, and only once it is in the log.
 */
export function describeEventLogConformance(name: string, make: MakeSubject<EventLogSubject>, options: ConformanceOptions<EventLogSubject> = {}): void {
  describe(`EventLog conformance: ${name}`, () => {
    let subject: EventLogSubject;
    let log: EventLog;
    beforeEach(async () => {
      subject = await make();
      log = subject.log;
    });
    afterEach(async () => {
      await options.cleanup?.(subject);
    });

    it("appends with increasing ids, and lists an instance's events in order after an id, in pages", async () => {
      const a = newId("i");
      const b = newId("i");
      const appended: StoredEvent[] = [];
      for (let n = 0; n < 6; n++) appended.push(await log.append({ instanceId: n % 2 ? b : a, version: 1, event: drained(n % 2 ? b : a, n), at: 1_000 + n }));
      expect(appended.map((e) => e.id)).toEqual([...appended.map((e) => e.id)].sort((x, y) => x - y));
      expect(new Set(appended.map((e) => e.id)).size).toBe(6);
      const ofA = appended.filter((e) => e.instanceId === a);
      expect(await log.list(a)).toEqual(ofA);
      expect(await log.list(a, { afterId: ofA[0].id })).toEqual(ofA.slice(1));
      expect(await log.list(a, { afterId: ofA[0].id, limit: 1 })).toEqual([ofA[1]]);
      expect(await log.list(a, { afterId: ofA[2].id })).toEqual([]);
      expect(await log.list(newId("i"))).toEqual([]);
      expect(ofA[1]).toEqual({ id: ofA[1].id, instanceId: a, version: 1, at: 1_002, event: drained(a, 2) });
    });

    it("keeps the order of appends made at once (one engine step emits several events)", async () => {
      const ids = [newId("i"), newId("i"), newId("i")];
      const calls = Array.from({ length: 60 }, (_, n) => log.append({ instanceId: ids[n % 3], version: 1, event: drained(ids[n % 3], n) }));
      const stored = await Promise.all(calls);
      const order = stored.map((e) => e.id);
      expect(order).toEqual([...order].sort((x, y) => x - y));
      for (const id of ids) expect((await log.list(id)).map((e) => (e.event as { reason: string }).reason)).toEqual(stored.filter((e) => e.instanceId === id).map((e) => (e.event as { reason: string }).reason));
    });

    it("stamps an event with the time of its append unless told, and reads every field back as written", async () => {
      const id = newId("i");
      const before = Date.now();
      const event: EngineEvent = {
        type: "node_activity",
        instanceId: id,
        node: "n",
        invocationId: `${id}.1`,
        activity: { kind: "message", text: "héllo \u2028 \"quoted\"", nested: { list: [1, null, true], empty: {} } },
      } as unknown as EngineEvent;
      const stored = await log.append({ instanceId: id, version: 3, event });
      expect(stored.at).toBeGreaterThanOrEqual(before);
      expect(stored.at).toBeLessThanOrEqual(Date.now());
      expect(await log.list(id)).toEqual([{ id: stored.id, instanceId: id, version: 3, at: stored.at, event }]);
    });

    it("lists one version's events by position", async () => {
      const id = newId("i");
      const v1: StoredEvent[] = [];
      const v2: StoredEvent[] = [];
      for (let n = 0; n < 5; n++) v1.push(await log.append({ instanceId: id, version: 1, event: drained(id, n) }));
      for (let n = 0; n < 3; n++) v2.push(await log.append({ instanceId: id, version: 2, event: status(id, 2) }));
      await log.append({ instanceId: newId("i"), version: 1, event: status("other") });
      expect(await log.listVersion(id, { version: 1, offset: 0, limit: 100 })).toEqual(v1);
      expect(await log.listVersion(id, { version: 1, offset: 2, limit: 2 })).toEqual(v1.slice(2, 4));
      expect(await log.listVersion(id, { version: 2, offset: 1, limit: 10 })).toEqual(v2.slice(1));
      expect(await log.listVersion(id, { version: 2, offset: 3, limit: 10 })).toEqual([]);
      expect(await log.listVersion(id, { version: 3, offset: 0, limit: 10 })).toEqual([]);
    });

    it("runs whenDurable in order, once what was appended before it is committed", async () => {
      const id = newId("i");
      const order: number[] = [];
      const committedThen: Promise<number>[] = [];
      for (let n = 0; n < 3; n++) {
        void log.append({ instanceId: id, version: 1, event: drained(id, n) });
        log.whenDurable(() => {
          order.push(n);
          // What another connection reads from now on: at least the events appended before this call.
          if (subject.committed) committedThen[n] = Promise.resolve(subject.committed.list(id)).then((rows) => rows.length);
        });
      }
      await new Promise<void>((resolve) => log.whenDurable(resolve));
      expect(order).toEqual([0, 1, 2]);
      const counts = await Promise.all(committedThen);
      counts.forEach((count, n) => expect(count).toBeGreaterThanOrEqual(n + 1));
    });

    it("through an EventRecorder: announces each event once, in order, after it is in the log", async () => {
      const id = newId("i");
      const bus = new EventBus();
      const recorder = new EventRecorder(log, bus);
      const announced: StoredEvent[] = [];
      const listedWhenAnnounced: Promise<boolean>[] = [];
      const all = new Promise<void>((resolve) => {
        bus.subscribe(id, (e) => {
          announced.push(e);
          const reader = subject.committed ?? log;
          listedWhenAnnounced.push(Promise.resolve(reader.list(id, { afterId: e.id - 1, limit: 1 })).then((rows) => rows[0]?.id === e.id));
          if (announced.length === 40) resolve();
        });
      });
      const observer = recorder.observerFor(id, 1);
      for (let n = 0; n < 40; n++) observer.onEvent(drained(id, n));
      await all;
      expect(announced.map((e) => (e.event as { reason: string }).reason)).toEqual(Array.from({ length: 40 }, (_, n) => `r${n}`));
      expect(announced.map((e) => e.id)).toEqual([...announced.map((e) => e.id)].sort((x, y) => x - y));
      expect(await Promise.all(listedWhenAnnounced)).toEqual(Array(40).fill(true));
      expect((await log.list(id)).map((e) => e.id)).toEqual(announced.map((e) => e.id));
    });
  });
}
