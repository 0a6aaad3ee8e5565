import { z } from "zod";
import { TokenBudgetExtension } from "../server/agent/extensions/builtin/token-budget-extension";
import { InMemoryTokenTotals, type TokenTotals } from "../server/agent/extensions/builtin/token-totals";
import { ExtensionManager } from "../server/agent/extensions/extension-manager";
import { ScriptedProvider } from "../server/agent/llm/providers/scripted-provider";
import { silentLogger } from "../server/agent/logger";
import { ReactAgent } from "../server/agent/react/react-agent";
import { defineTool } from "../server/agent/tools/tool";
import { TempDatabase } from "../server/db/testing/temp-database";
import { SqliteTokenTotals } from "../server/services/extensions/token-totals-store";
import { median } from "./measure";

const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 };

/** A ReAct agent of `iterations` model calls a turn, with token_budget (per instance) keeping its totals in `totals`. */
function budgetAgent(iterations: number, totals: TokenTotals | null): ReactAgent {
  const noop = defineTool({ name: "noop", description: "does nothing", args: z.object({ n: z.number() }), execute: ({ n }) => String(n) });
  let call = 0;
  const provider = new ScriptedProvider(() =>
    ++call % iterations === 0 ? { text: "done", usage } : { text: "step", toolCalls: [{ name: "noop", args: { n: call } }], usage },
  );
  let extensions: ExtensionManager | undefined;
  if (totals) {
    extensions = new ExtensionManager({ logger: silentLogger });
    extensions.register(new TokenBudgetExtension({ perTurn: 1e12, perInstance: 1e12, totals }));
  }
  return new ReactAgent({ provider, tools: [noop], maxIterations: iterations + 1, extensions, logger: silentLogger });
}

export interface TokenBudgetCost {
  /** What token_budget adds per model call with its totals in memory (before: lost on a restart), µs of CPU. */
  memoryCpuUs: number;
  /** What it adds with its totals on SQLite (after: a read before, an add after each call), µs of CPU. */
  sqliteCpuUs: number;
  sqliteWallUs: number;
}

/**
 * token_budget's cost per model call: turns of three agents alternate (none, totals in memory, totals in
 * a real SQLite file), each turn `iterations` model calls on an instance of its own; the median turn's
 * CPU and wall time less the plain agent's, per call.
 */
export async function measureTokenBudgetCost(options: { iterations?: number; turns?: number } = {}): Promise<TokenBudgetCost> {
  const iterations = options.iterations ?? 20;
  const turns = options.turns ?? 200;
  const temp = new TempDatabase(); // not `using`: the bench bundle runs on Node 20 as esbuild leaves it
  try {
    return await measure(temp, iterations, turns);
  } finally {
    temp[Symbol.dispose]();
  }
}

async function measure(temp: TempDatabase, iterations: number, turns: number): Promise<TokenBudgetCost> {
  const agents = { none: budgetAgent(iterations, null), memory: budgetAgent(iterations, new InMemoryTokenTotals()), sqlite: budgetAgent(iterations, new SqliteTokenTotals(temp.db)) };
  const cpu = { none: [] as number[], memory: [] as number[], sqlite: [] as number[] };
  const wall = { none: [] as number[], memory: [] as number[], sqlite: [] as number[] };
  for (let i = 0; i < turns + 10; i++) {
    for (const key of ["none", "memory", "sqlite"] as const) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      await agents[key].run("go", { sessionId: `run${i}-${key}:node` });
      const used = process.cpuUsage(cpuStarted);
      if (i < 10) continue;
      wall[key].push((performance.now() - started) * 1000);
      cpu[key].push(used.user + used.system);
    }
  }
  const perCall = (xs: number[], base: number[]) => (median(xs) - median(base)) / iterations;
  return { memoryCpuUs: perCall(cpu.memory, cpu.none), sqliteCpuUs: perCall(cpu.sqlite, cpu.none), sqliteWallUs: perCall(wall.sqlite, wall.none) };
}
