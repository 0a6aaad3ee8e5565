import type { EngineObserver } from "@/server/graph/events";
import { yieldingFanOut } from "@/server/graph/testing/fixtures";
import type { GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import { recoverInstance } from "./durable-run";

/**
 * What a crash child does on its database, whichever it is (crash-worker.ts on SQLite, pg-crash-worker.ts
 * on PostgreSQL); crash-cycles.ts is the parent's side of the same protocol.
 */

/** The crash tests' graph (yieldingFanOut). */
export function crashFanOut(branches: number) {
  return yieldingFanOut(branches, { name: `crash-fan${branches}`, timerMs: 1 });
}

/**
 * Runs each instance `concurrency` at a time: a new one fresh, one a killed child left running or
 * crashed by recovery, a completed one not at all. Prints a "." per completed node: the parent kills
 * after a number of them.
 */
export async function runOrRecoverAll(options: {
  graph: ReturnType<typeof crashFanOut>;
  coordinator: GraphPersistenceCoordinator;
  ids: readonly string[];
  concurrency: number;
}): Promise<void> {
  const { graph, coordinator } = options;
  const observer: EngineObserver = {
    onEvent: (e) => {
      if (e.type === "node_completed") process.stdout.write(".");
    },
  };
  const runOne = async (instanceId: string) => {
    const record = await coordinator.instances.load(instanceId);
    if (!record) {
      await graph.run(graph.createContext({ coordinator, instanceId, input: instanceId, observer }), "fresh");
    } else if (record.status === "running" || record.status === "crashed") {
      await recoverInstance(graph, coordinator, instanceId, observer);
    }
  };
  const queue = [...options.ids];
  const lane = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) await runOne(id);
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
}
