import { describe, expect, it } from "vitest";
import { InMemoryControlChannel } from "./in-memory-control-channel";
import { routeGraphCommands, type GraphCommandHandler } from "./route-graph-commands";

function recorder() {
  const calls: string[] = [];
  const at = (op: string) => async (id: string) => void calls.push(`${op} ${id}`);
  const handler: GraphCommandHandler = { pause: at("pause"), stop: at("stop"), resume: at("resume"), deliver: at("deliver") };
  return { calls, handler };
}

describe("routeGraphCommands", () => {
  it("hands the four graph commands to the handler in order and leaves the rest queued", async () => {
    const channel = new InMemoryControlChannel();
    const g = (type: "PAUSE_GRAPH" | "STOP_GRAPH" | "RESUME_GRAPH" | "DELIVER_TO_NODE") => ({ type, scope: "graph_instance" as const, sessionId: "s", graphInstanceId: "g1" });
    channel.send(g("PAUSE_GRAPH"));
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s" });
    channel.send(g("RESUME_GRAPH"));
    channel.send(g("DELIVER_TO_NODE"));
    channel.send(g("STOP_GRAPH"));
    const { calls, handler } = recorder();
    expect(await routeGraphCommands(channel, "s", handler)).toEqual([]);
    expect(calls).toEqual(["pause g1", "resume g1", "deliver g1", "stop g1"]);
    expect(channel.peek("s").map((c) => c.type)).toEqual(["CANCEL_TURN"]);
  });

  it("returns graph commands without an instance id unrouted", async () => {
    const channel = new InMemoryControlChannel();
    channel.send({ type: "STOP_GRAPH", scope: "graph_instance", sessionId: "s" });
    const { calls, handler } = recorder();
    expect(await routeGraphCommands(channel, "s", handler)).toHaveLength(1);
    expect(calls).toEqual([]);
  });
});
