import { setTimeout as sleep } from "node:timers/promises";
import {
  LlmProvider,
  type LlmStreamOptions,
} from "../server/agent/llm/llm-provider";
import type { LlmRequest } from "../server/agent/llm/messages";
import type { LLMStreamEvent } from "../server/agent/llm/stream-events";
import { TempDatabase } from "../server/db/testing/temp-database";
import {
  createAppServices,
  type AppServices,
} from "../server/services/app-services";
import { AuthService } from "../server/services/auth-service";
import { median } from "./measure";

/**
 * A model that answers each call after `delayMs`: a deliver to `__end__` (or to `next`, for a chain)
 * at a turn's start, "done" once the deliver's result is in. One per graph; stateless between calls.
 */
class DeliveringModel extends LlmProvider {
  readonly name = "bench";
  constructor(private readonly delayMs: number) {
    super();
  }
  async *stream(
    request: LlmRequest,
    _options: LlmStreamOptions,
  ): AsyncGenerator<LLMStreamEvent> {
    if (this.delayMs > 0) await sleep(this.delayMs);
    const last = request.messages.at(-1);
    if (last?.role === "tool") {
      yield { type: "text_delta", text: "done" };
      yield { type: "finish", reason: "stop" };
      return;
    }
    const deliver = request.tools.find((t) => t.name === "deliver");
    const targets = ((
      deliver?.parameters as { properties?: { target?: { enum?: string[] } } }
    )?.properties?.target?.enum ?? ["__end__"]) as string[];
    yield { type: "text_delta", text: "Handing it on." };
    yield {
      type: "tool_call_complete",
      call: {
        id: "c1",
        name: "deliver",
        arguments: JSON.stringify({ target: targets[0], content: "result" }),
      },
    };
    yield {
      type: "usage_snapshot",
      usage: {
        inputTokens: 10,
        outputTokens: 5,
        reasoningTokens: 0,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
      },
    };
    yield { type: "finish", reason: "tool_calls" };
  }
}

function services(temp: TempDatabase, delayMs: number): AppServices {
  const model = new DeliveringModel(delayMs);
  return createAppServices({
    db: temp.db,
    auth: new AuthService("bench-token-0123456789abcdefghijklmnopqrstuv"),
    heartbeatMs: 0,
    agents: { provider: () => model },
  });
}

const agentNode = (name: string) =>
  `  - { name: ${name}, node_type: agent, config: { instructions: Do your part and hand it on. } }`;
const functionNode = (name: string) =>
  `  - { name: ${name}, node_type: function, config: { op: template, template: "{{input}}" } }`;

function chainSpec(
  name: string,
  n: number,
  node: (name: string) => string,
): string {
  const names = Array.from({ length: n }, (_, i) => `n${i}`);
  const edges = ["__start__", ...names, "__end__"]
    .slice(0, -1)
    .map((from, i) => `  - { from: ${from}, to: ${[...names, "__end__"][i]} }`);
  return [
    `name: ${name}`,
    "nodes:",
    ...names.map(node),
    "edges:",
    ...edges,
  ].join("\n");
}

async function run(s: AppServices, spec: string): Promise<void> {
  const { instanceId } = await s.orchestrator.create({ spec, input: "go" });
  await s.orchestrator.settled(instanceId);
  const done = await s.orchestrator.coordinator.instances.load(instanceId);
  if (done?.status !== "completed")
    throw new Error(`${spec} ended ${done?.status}`);
}

/**
 * Agent-node overhead per invocation in a durable graph: a chain of 10 agent nodes on a real SQLite file
 * (each invocation: two calls of a scripted model that answers at once, its conversation saved, ~8 agent
 * events logged, spans written), minus the same chain of function nodes, per node; medians of 60 runs.
 */
export async function measureAgentNodeOverhead(): Promise<{
  perInvocationMs: number;
  overheadMs: number;
  cpuPerInvocationMs: number;
}> {
  const temp = new TempDatabase();
  const s = services(temp, 0);
  try {
    const n = 10;
    s.specs.save(chainSpec("bench-agents", n, agentNode));
    s.specs.save(chainSpec("bench-functions", n, functionNode));
    const times = async (spec: string) => {
      for (let i = 0; i < 10; i++) await run(s, spec);
      const out: number[] = [];
      for (let i = 0; i < 60; i++) {
        const t = performance.now();
        await run(s, spec);
        out.push(performance.now() - t);
      }
      return median(out);
    };
    const agents = await times("bench-agents");
    const functions = await times("bench-functions");
    // CPU time too: on a machine shared with other work, wall time also counts the waits for a core.
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 30; i++) await run(s, "bench-agents");
    const cpu = process.cpuUsage(cpu0);
    return {
      perInvocationMs: agents / n,
      overheadMs: (agents - functions) / n,
      cpuPerInvocationMs: (cpu.user + cpu.system) / 1000 / 30 / n,
    };
  } finally {
    await close(s, temp);
  }
}

// (No `using`: Node 20 does not parse it, and the bench is bundled as written.)
async function close(s: AppServices, temp: TempDatabase): Promise<void> {
  s.recovery.stop();
  await s.orchestrator.drainAll();
  temp[Symbol.dispose]();
}

/**
 * A fan-out of `width` agent nodes whose model answers each call after 20 ms (two calls per node), joined
 * at END: the wall time (and the process's CPU time) of the best of 3 runs after a warm-up run, which
 * parses and compiles the spec and warms the code. The agents wait for their model concurrently; what is
 * left is each one's own CPU work, on one thread.
 */
export async function measureAgentFanOut(
  width = 1_000,
  delayMs = 20,
): Promise<{ wallMs: number; cpuMs: number }> {
  const temp = new TempDatabase();
  const s = services(temp, delayMs);
  try {
    const names = Array.from({ length: width }, (_, i) => `a${i}`);
    s.specs.save(
      [
        "name: bench-fan-out",
        "scheduler: parallel",
        `max_iterations: ${width * 4}`,
        "nodes:",
        ...names.map(agentNode),
        "edges:",
        ...names.flatMap((n) => [
          `  - { from: __start__, to: ${n} }`,
          `  - { from: ${n}, to: __end__ }`,
        ]),
      ].join("\n"),
    );
    await run(s, "bench-fan-out");
    let best = { wallMs: Infinity, cpuMs: Infinity };
    for (let i = 0; i < 3; i++) {
      const cpu0 = process.cpuUsage();
      const t = performance.now();
      await run(s, "bench-fan-out");
      const wallMs = performance.now() - t;
      const cpu = process.cpuUsage(cpu0);
      if (wallMs < best.wallMs) best = { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
    }
    return best;
  } finally {
    await close(s, temp);
  }
}
