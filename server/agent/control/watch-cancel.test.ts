import { describe, expect, it } from "vitest";
import { AgentCancelledError } from "../errors";
import { InMemoryControlChannel } from "./in-memory-control-channel";
import { watchCancel } from "./watch-cancel";

const target = { sessionId: "s1", turnId: "t1" };

describe("watchCancel", () => {
  it("aborts with the parent's reason while watching, and follows the parent no more once stopped", () => {
    const parent = new AbortController();
    const watch = watchCancel(undefined, target, parent.signal);
    parent.abort(new Error("shutting down"));
    expect(watch.signal.aborted).toBe(true);
    expect((watch.signal.reason as Error).message).toBe("shutting down");

    const later = new AbortController();
    const stopped = watchCancel(undefined, target, later.signal);
    stopped.stop();
    later.abort();
    expect(stopped.signal.aborted).toBe(false);
  });

  it("starts aborted under an aborted parent", () => {
    const parent = new AbortController();
    parent.abort();
    expect(watchCancel(undefined, target, parent.signal).signal.aborted).toBe(true);
  });

  it("a CANCEL_TURN for the target aborts with the AgentCancelledError and rejects `cancelled`; a stale one does not", async () => {
    const channel = new InMemoryControlChannel();
    const watch = watchCancel(channel, target, new AbortController().signal);
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "old" });
    expect(watch.signal.aborted).toBe(false);
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1", reason: "stop pressed" });
    expect(watch.signal.reason).toBeInstanceOf(AgentCancelledError);
    await expect(watch.cancelled).rejects.toBe(watch.error);
    watch.stop();
  });
});
