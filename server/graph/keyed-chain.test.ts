import { describe, expect, it } from "vitest";
import { KeyedChain } from "./keyed-chain";

/** A write the test ends by hand, recording when it starts. */
function gate(log: string[], name: string) {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    open = () => resolve(name);
    fail = reject;
  });
  return { write: () => (log.push(`start ${name}`), done), open, fail };
}

describe("KeyedChain", () => {
  it("runs an instance's writes one after another, in the order started; another instance's write does not wait", async () => {
    const chain = new KeyedChain();
    const log: string[] = [];
    const [a1, a2, b1] = [gate(log, "a1"), gate(log, "a2"), gate(log, "b1")];
    const first = chain.run("a", a1.write);
    const second = chain.run("a", a2.write);
    chain.run("b", b1.write);
    expect(log).toEqual(["start a1", "start b1"]); // the first write of each instance starts synchronously
    a1.open();
    expect(await first).toBe("a1");
    await Promise.resolve();
    expect(log).toEqual(["start a1", "start b1", "start a2"]);
    a2.open();
    b1.open();
    expect(await second).toBe("a2");
    await chain.allSettled();
    expect([...chain.keys()]).toEqual([]);
    expect(chain.inProgress("a")).toBeUndefined();
  });

  it("a failed write rejects its caller and tells onFailure; the next write still runs, and waiting never rejects", async () => {
    const chain = new KeyedChain();
    const log: string[] = [];
    const failures: unknown[] = [];
    const [bad, next] = [gate(log, "bad"), gate(log, "next")];
    const failed = chain.run("a", bad.write, (error) => failures.push(error));
    const waitedOn = chain.settled("a");
    const after = chain.run("a", next.write);
    bad.fail(new Error("lost the race"));
    await expect(failed).rejects.toThrow("lost the race");
    await expect(waitedOn).resolves.toBeUndefined(); // the failure is its caller's, not a waiter's
    expect(failures).toEqual([new Error("lost the race")]);
    expect(log).toEqual(["start bad", "start next"]);
    next.open();
    expect(await after).toBe("next");
    await expect(chain.allSettled()).resolves.toBeUndefined();
  });

  it("settled waits for every write of the instance started so far", async () => {
    const chain = new KeyedChain();
    const log: string[] = [];
    const [one, two] = [gate(log, "one"), gate(log, "two")];
    chain.run("a", one.write);
    chain.run("a", two.write);
    let settled = false;
    void chain.settled("a").then(() => (settled = true));
    one.open();
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    two.open();
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(true);
  });
});
