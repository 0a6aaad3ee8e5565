/**
 * Child process of pg-crash-recovery.int.test.ts: runs (or recovers) parallel fan-out instances on a
 * PostgreSQL database until it is SIGKILLed or all of them completed. Usage:
 *   node pg-crash-worker.mjs <database url> <branches> <concurrency> <instance id>...
 * Prints "ready" once connected, a "." per completed node (the parent kills after a random number of
 * them), and "done" when every instance completed. Node steps commit asynchronously (the default):
 * a kill -9 of this process must lose none of them.
 */
import { crashFanOut, runOrRecoverAll } from "../../testing/crash-fan-out";
import { PgCoordinator } from "../pg-coordinator";
import { openPgEngineDatabase } from "../pg-database";

async function main(): Promise<void> {
  const [url, branchArg, concurrencyArg, ...ids] = process.argv.slice(2);
  const db = openPgEngineDatabase({ url, applicationName: "modex-crash-worker" });
  const coordinator = new PgCoordinator(db);
  const graph = crashFanOut(Number(branchArg));
  await db.acks.query({ text: "SELECT 1" });
  process.stdout.write("ready\n");
  await runOrRecoverAll({ graph, coordinator, ids, concurrency: Number(concurrencyArg) });
  await db.close();
  process.stdout.write("done\n");
}

await main();
