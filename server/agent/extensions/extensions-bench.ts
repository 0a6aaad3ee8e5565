import { z } from "zod";
import { ScriptedProvider } from "../llm/providers/scripted-provider";
import { silentLogger } from "../logger";
import { ReactAgent } from "../react/react-agent";
import { defineTool } from "../tools/tool";
import { Extension } from "./extension";
import { ExtensionManager } from "./extension-manager";
import { ALL_EXTENSION_POINTS, EXTENSION_METHOD } from "./extension-point";

/** An extension with a method at every point that does nothing: the most a no-op extension costs. */
class NoopEverywhere extends Extension {
  constructor(readonly name: string) {
    super();
    for (const point of ALL_EXTENSION_POINTS) (this as unknown as Record<string, unknown>)[EXTENSION_METHOD[point]] = () => undefined;
  }
}

function benchAgent(iterations: number, extensions: ExtensionManager | undefined): ReactAgent {
  const noop = defineTool({ name: "noop", description: "does nothing", args: z.object({ n: z.number() }), execute: ({ n }) => String(n) });
  let call = 0;
  const provider = new ScriptedProvider(() => (++call % iterations === 0 ? { text: "done" } : { text: "step", toolCalls: [{ name: "noop", args: { n: call } }] }));
  return new ReactAgent({ provider, tools: [noop], maxIterations: iterations + 1, extensions, logger: silentLogger });
}

export interface ExtensionOverhead {
  /** Added CPU time (user + system) per iteration, µs: what the extensions cost, whatever else runs on the machine. */
  cpuUs: number;
  /** Added wall time per iteration, µs (noisy on a loaded machine). */
  wallUs: number;
}

/**
 * What ten registered no-op extensions (each with a method at all 25 points) add per ReAct iteration,
 * in microseconds: median turn time with them minus without, divided by the iterations, in CPU time and
 * in wall time. Turns of the two agents alternate, so drift in machine load hits both alike.
 * Budget: ≤ 100 µs.
 */
export async function measureExtensionOverhead(options: { iterations?: number; turns?: number; count?: number } = {}): Promise<ExtensionOverhead> {
  const iterations = options.iterations ?? 20;
  const turns = options.turns ?? 200;
  const manager = new ExtensionManager({ logger: silentLogger });
  for (let i = 0; i < (options.count ?? 10); i++) manager.register(new NoopEverywhere(`noop_${i}`));
  const agents = { plain: benchAgent(iterations, undefined), extended: benchAgent(iterations, manager) };
  const wall = { plain: [] as number[], extended: [] as number[] };
  const cpu = { plain: [] as number[], extended: [] as number[] };
  for (let i = 0; i < turns + 10; i++) {
    for (const key of ["plain", "extended"] as const) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      await agents[key].run("go", { sessionId: `bench-${key}-${i}` });
      const used = process.cpuUsage(cpuStarted);
      if (i < 10) continue;
      wall[key].push((performance.now() - started) * 1000);
      cpu[key].push(used.user + used.system);
    }
  }
  return {
    cpuUs: (median(cpu.extended) - median(cpu.plain)) / iterations,
    wallUs: (median(wall.extended) - median(wall.plain)) / iterations,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
