import { z } from "zod";
import { HookRunner } from "../hook/hook-runner";
import { ScriptedProvider } from "../llm/providers/scripted-provider";
import { ReactAgent } from "../react/react-agent";
import { defineTool } from "../tools/tool";
import { createSpanHooks } from "../trace/create-span-hooks";
import { InMemorySpanSink } from "../trace/span-record";

export interface ReactIterationBenchOptions {
  /** ReAct iterations per turn (each: one LLM call with one tool call). */
  iterations?: number;
  turns?: number;
}

/**
 * Agent overhead per ReAct iteration with the scripted provider, one tool call per iteration and the full
 * span tier: the median turn time divided by its iterations, in microseconds. Budget: ≤ 1,000 µs.
 * `npm run bench` reports it from `bench/agent-main.ts`, a process of its own.
 */
export async function measureReactIterationOverhead(options: ReactIterationBenchOptions = {}): Promise<number> {
  const iterations = options.iterations ?? 20;
  const turns = options.turns ?? 200;
  const noop = defineTool({ name: "noop", description: "does nothing", args: z.object({ n: z.number() }), execute: ({ n }) => String(n) });
  let call = 0;
  const provider = new ScriptedProvider(() => (++call % iterations === 0 ? { text: "done" } : { toolCalls: [{ name: "noop", args: { n: call } }] }));
  const sink = new InMemorySpanSink();
  const hooks = new HookRunner();
  for (const spec of createSpanHooks({ tier: "full", sink, providerName: "scripted", model: "bench" })) hooks.register(spec);
  const agent = new ReactAgent({ provider, tools: [noop], hooks, maxIterations: iterations + 1 });
  const times: number[] = [];
  for (let i = 0; i < turns + 10; i++) {
    sink.spans.length = 0;
    const started = performance.now();
    await agent.run("go", { sessionId: `bench-${i}` });
    if (i >= 10) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return (times[Math.floor(times.length / 2)] * 1000) / iterations;
}
