import { describe, expect, it } from "vitest";
import { AgentCancelledError } from "../errors";
import { COMMAND_LIVENESS, ControlCommandType, GRAPH_COMMANDS } from "./control-command";
import { drainControlChannel } from "./drain-control-channel";
import { DEFAULT_CONTROL_TTL_MS, InMemoryControlChannel } from "./in-memory-control-channel";

const cancel = (sessionId: string, turnId?: string) => ({ type: ControlCommandType.CANCEL_TURN, scope: "turn" as const, sessionId, turnId });

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("ControlCommandType", () => {
  it("has nine members with the spec's liveness", () => {
    expect(Object.keys(ControlCommandType)).toHaveLength(9);
    const live = Object.entries(COMMAND_LIVENESS).filter(([, l]) => l === "live").map(([t]) => t);
    expect(live.sort()).toEqual(["CANCEL_TURN", "DELIVER_TO_NODE", "PAUSE_GRAPH", "RESUME_GRAPH", "STOP_GRAPH"]);
    expect(COMMAND_LIVENESS.INJECT_STEER).toBe("producer-only");
    expect(COMMAND_LIVENESS.APPROVAL_RESPONSE).toBe("reserved");
    expect(COMMAND_LIVENESS.CANCEL_RUN).toBe("reserved");
    expect(COMMAND_LIVENESS.INJECT_USER_MESSAGE).toBe("reserved");
    expect([...GRAPH_COMMANDS].sort()).toEqual(["DELIVER_TO_NODE", "PAUSE_GRAPH", "RESUME_GRAPH", "STOP_GRAPH"]);
  });
});

describe("InMemoryControlChannel", () => {
  it("routes by session: a drain sees only its own session's commands", () => {
    const channel = new InMemoryControlChannel();
    channel.send(cancel("a"));
    channel.send(cancel("b"));
    expect(channel.drain("a", new Set(["CANCEL_TURN"]))).toHaveLength(1);
    expect(channel.drain("a", new Set(["CANCEL_TURN"]))).toHaveLength(0);
    expect(channel.peek("b")).toHaveLength(1);
  });

  it("drains only the asked types and keeps the rest in order", () => {
    const channel = new InMemoryControlChannel();
    channel.send({ type: "INJECT_STEER", scope: "session", sessionId: "a" });
    channel.send(cancel("a"));
    channel.send({ type: "PAUSE_GRAPH", scope: "graph_instance", sessionId: "a", graphInstanceId: "g" });
    expect(channel.drain("a", new Set(["CANCEL_TURN"])).map((c) => c.type)).toEqual(["CANCEL_TURN"]);
    expect(channel.peek("a").map((c) => c.type)).toEqual(["INJECT_STEER", "PAUSE_GRAPH"]);
  });

  it("drops commands older than the TTL (300 s by default)", () => {
    const c = clock();
    const channel = new InMemoryControlChannel({ now: c.now });
    channel.send(cancel("a"));
    c.advance(DEFAULT_CONTROL_TTL_MS - 1);
    expect(channel.peek("a")).toHaveLength(1);
    c.advance(1);
    expect(channel.drain("a", new Set(["CANCEL_TURN"]))).toEqual([]);
  });

  it("rejects malformed commands", () => {
    const channel = new InMemoryControlChannel();
    expect(() => channel.send({ type: "NOPE", scope: "turn", sessionId: "a" } as never)).toThrow();
  });
});

describe("InMemoryControlChannel.watch", () => {
  it("calls a session's watchers after each command sent for it, until unwatched", () => {
    const channel = new InMemoryControlChannel();
    const seen: string[] = [];
    const unwatch = channel.watch("s1", () => seen.push(channel.peek("s1").map((c) => c.type).join()));
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s2" });
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1" });
    unwatch();
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1" });
    expect(seen).toEqual(["CANCEL_TURN"]);
  });
});

describe("drainControlChannel", () => {
  const target = { sessionId: "s", turnId: "t1" };

  it("raises AgentCancelledError for a CANCEL_TURN aimed at this turn", () => {
    const channel = new InMemoryControlChannel();
    channel.send(cancel("s", "t1"));
    expect(() => drainControlChannel(channel, target)).toThrow(AgentCancelledError);
    expect(() => drainControlChannel(channel, target)).not.toThrow();
  });

  it("treats a CANCEL_TURN naming no turn as aimed at the running one", () => {
    const channel = new InMemoryControlChannel();
    channel.send(cancel("s"));
    expect(() => drainControlChannel(channel, target)).toThrow(AgentCancelledError);
  });

  it("discards a stale CANCEL_TURN for another turn id without cancelling", () => {
    const channel = new InMemoryControlChannel();
    channel.send(cancel("s", "old-turn"));
    expect(() => drainControlChannel(channel, target)).not.toThrow();
    expect(channel.peek("s")).toEqual([]);
  });

  it("leaves other command types queued", () => {
    const channel = new InMemoryControlChannel();
    channel.send({ type: "INJECT_STEER", scope: "session", sessionId: "s" });
    drainControlChannel(channel, target);
    expect(channel.peek("s")).toHaveLength(1);
  });

  it("a turnless CANCEL_TURN sent before the turn started is stale (a late /stop must not cancel the next turn)", () => {
    const c = clock(1_000);
    const channel = new InMemoryControlChannel({ now: c.now });
    channel.send(cancel("s"));
    expect(() => drainControlChannel(channel, { ...target, startedAt: 1_001 })).not.toThrow();
    expect(channel.peek("s")).toEqual([]);
    channel.send(cancel("s"));
    expect(() => drainControlChannel(channel, { ...target, startedAt: 1_000 })).toThrow(AgentCancelledError);
  });

  it("is a no-op without a channel", () => {
    expect(() => drainControlChannel(undefined, target)).not.toThrow();
  });
});
