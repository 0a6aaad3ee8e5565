/**
 * Child process of crash-recovery.int.test.ts: runs (or recovers) parallel fan-out instances on a SQLite
 * file until it is SIGKILLed or all of them completed. Usage:
 *   node --import tsx crash-worker.ts <db file> <branches> <concurrency> <instance id>...
 * Prints "ready" once the database is open, a "." per completed node (the parent kills after a random
 * number of them), and "done" when every instance completed.
 */
import type { EngineObserver } from "@/server/graph/events";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import { openGraphDatabase } from "../graph-database";
import { SqliteCoordinator } from "../sqlite-coordinator";
import { recoverInstance } from "./durable-run";

/** START → fan → b0..bN-1 → END. Each branch yields to the event loop, then delivers its own name. */
export function crashFanOut(branches: number) {
  const g = new Graph({ name: `crash-fan${branches}` });
  g.addNode(
    new FunctionNode("fan", (ctx) => {
      for (let i = 0; i < branches; i++) ctx.deliver(i, `b${i}`);
    }),
  ).addEdge(START, "fan");
  for (let i = 0; i < branches; i++) {
    // Odd branches await a timer, even ones a macrotask: kills land inside async node bodies too.
    const pause = i % 2 ? () => new Promise((r) => setTimeout(r, 1)) : () => new Promise((r) => setImmediate(r));
    g.addNode(new FunctionNode(`b${i}`, async () => (await pause(), `b${i}`))).addEdge("fan", `b${i}`).addEdge(`b${i}`, END);
  }
  return g.compile({ scheduler: "parallel", maxIterations: branches * 4 + 10 });
}

async function main(): Promise<void> {
  const [file, branchArg, concurrencyArg, ...ids] = process.argv.slice(2);
  const branches = Number(branchArg);
  // The background checkpointer runs too: a kill may land mid-checkpoint.
  const coordinator = new SqliteCoordinator(openGraphDatabase(file, { backgroundCheckpoint: true }));
  const graph = crashFanOut(branches);
  process.stdout.write("ready\n");

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
  const queue = [...ids];
  const lane = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) await runOne(id);
  };
  await Promise.all(Array.from({ length: Number(concurrencyArg) }, lane));
  coordinator.flush();
  process.stdout.write("done\n");
}

await main();
