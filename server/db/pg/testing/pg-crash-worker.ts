/**
 * Child process of pg-crash-recovery.int.test.ts: runs (or recovers) parallel fan-out instances on a
 * PostgreSQL database until it is SIGKILLed or all of them completed. Usage:
 *   node pg-crash-worker.mjs <database url> <branches> <concurrency> <instance id>...
 * Prints "ready" once connected, a "." per completed node (the parent kills after a random number of
 * them), and "done" when every instance completed. Node steps commit asynchronously (the default):
 * a kill -9 of this process must lose none of them.
 */
import type { EngineObserver } from "@/server/graph/events";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import { recoverInstance } from "../../testing/durable-run";
import { PgCoordinator } from "../pg-coordinator";
import { openPgEngineDatabase } from "../pg-database";

/** START → fan → b0..bN-1 → END. Each branch yields to the event loop, then delivers its own name. */
export function crashFanOut(branches: number) {
  const g = new Graph({ name: `pg-crash-fan${branches}` });
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
  const [url, branchArg, concurrencyArg, ...ids] = process.argv.slice(2);
  const db = openPgEngineDatabase({ url, applicationName: "modex-crash-worker" });
  const coordinator = new PgCoordinator(db);
  const graph = crashFanOut(Number(branchArg));
  await db.acks.query({ text: "SELECT 1" });
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
  await db.close();
  process.stdout.write("done\n");
}

await main();
