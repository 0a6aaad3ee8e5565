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
