import { describe, expect, it } from "vitest";
import { TurnGate } from "./turn-gate";

describe("TurnGate", () => {
  it("admits callers in arrival order, one per turn of the event loop, and other callbacks run between two of them", async () => {
    const gate = new TurnGate();
    const order: string[] = [];
    const entries = [1, 2, 3].map((i) => gate.enter().then(() => order.push(`admitted ${i}`)));
    expect(gate.queued).toBe(3);
    // Queued after the gate's first check phase: it runs before the second caller is admitted.
    setImmediate(() => order.push("another immediate"));
    await Promise.all(entries);
    expect(order).toEqual(["admitted 1", "another immediate", "admitted 2", "admitted 3"]);
    expect(gate.queued).toBe(0);
  });

  it("admits a caller that comes after the queue emptied", async () => {
    const gate = new TurnGate();
    await gate.enter();
    await expect(gate.enter()).resolves.toBeUndefined();
  });
});

describe("TurnGate's later lane", () => {
  it("admits later callers only in turns where no enter() caller waits", async () => {
    const gate = new TurnGate();
    const order: string[] = [];
    const all = [
      gate.later().then(() => order.push("run 1")),
      gate.enter().then(() => order.push("create 1")),
      gate.later().then(() => order.push("run 2")),
      gate.enter().then(() => order.push("create 2")),
    ];
    await Promise.all(all);
    expect(order).toEqual(["create 1", "create 2", "run 1", "run 2"]);
  });

  it("admits a later caller that has waited maxDeferMs even while enter() callers keep coming", async () => {
    const gate = new TurnGate({ maxDeferMs: 20 });
    const order: string[] = [];
    const run = gate.later().then((release) => (order.push("run"), release));
    const started = Date.now();
    // A steady stream of creates for 60 ms: the run must not wait for its end.
    while (Date.now() - started < 60) {
      await gate.enter();
      order.push("create");
    }
    (await run)();
    const at = order.indexOf("run");
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(order.length - 1);
  });

  it("keeps at most maxLater admitted later callers busy; a release or holdMs frees a place", async () => {
    const gate = new TurnGate({ maxLater: 2, holdMs: 50 });
    const admitted: number[] = [];
    const releases: (() => void)[] = [];
    const all = [1, 2, 3, 4].map((i) => gate.later().then((release) => (admitted.push(i), releases.push(release))));
    await new Promise((r) => setTimeout(r, 10));
    expect(admitted).toEqual([1, 2]);
    releases[0]();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(admitted).toEqual([1, 2, 3]);
    // Nobody releases 2 and 3: after holdMs they count as done and 4 is admitted.
    await Promise.all(all);
    expect(admitted).toEqual([1, 2, 3, 4]);
  });
});
