/**
 * Child process of crash-recovery.int.test.ts: runs (or recovers) parallel fan-out instances on a SQLite
 * file until it is SIGKILLed or all of them completed. Usage:
 *   node --import tsx crash-worker.ts <db file> <branches> <concurrency> <instance id>...
 * Prints "ready" once the database is open, a "." per completed node (the parent kills after a random
 * number of them), and "done" when every instance completed.
 */
import { openGraphDatabase } from "../graph-database";
import { SqliteCoordinator } from "../sqlite-coordinator";
import { crashFanOut, runOrRecoverAll } from "./crash-fan-out";

async function main(): Promise<void> {
  const [file, branchArg, concurrencyArg, ...ids] = process.argv.slice(2);
  // The background checkpointer runs too: a kill may land mid-checkpoint.
  const coordinator = new SqliteCoordinator(openGraphDatabase(file, { backgroundCheckpoint: true }));
  const graph = crashFanOut(Number(branchArg));
  process.stdout.write("ready\n");
  await runOrRecoverAll({ graph, coordinator, ids, concurrency: Number(concurrencyArg) });
  coordinator.flush();
  process.stdout.write("done\n");
}

await main();
