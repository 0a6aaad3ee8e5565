/**
 * The bench's worker child (cluster-worker-child.ts) with a statement counter, for cluster-cost.ts:
 * every query any pg client of the process sends (the engine pools, leases, pg-boss, LISTEN) is counted
 * by connection and statement. SIGUSR2 zeroes the counts (after the warm-up); SIGTERM writes them to
 * `$MODEX_COST_OUT/<pid>.json` with the worker's stats, then stops the worker.
 * Arguments: <database url> <concurrency> [<connections>].
 */
import { writeFileSync } from "node:fs";
import pg from "pg";
import { ClusterWorker } from "../server/cluster/cluster-worker";
import { testGraphCatalog } from "../server/cluster/testing/cluster-graphs";

const counts = new Map<string, number>();
type Query = (this: pg.Client, ...args: unknown[]) => unknown;
const query = pg.Client.prototype.query as unknown as Query;
(pg.Client.prototype as unknown as { query: Query }).query = function (...args) {
  const config = args[0] as string | { text?: string; name?: string };
  const text = typeof config === "string" ? config : config.name ? `[${config.name}]` : (config.text ?? "");
  // The connection's kind, without the worker id: modex-worker-w1a2b… → modex-worker.
  const app = ((this as unknown as { connectionParameters?: { application_name?: string } }).connectionParameters?.application_name ?? "?").replace(/-w[0-9a-f]{12}$/, "");
  const key = `${app} | ${text.replace(/\s+/g, " ").trim().slice(0, 80)}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
  return query.apply(this, args);
};

const [url, concurrency, connections] = process.argv.slice(2);
const worker = await ClusterWorker.start({
  url,
  graphs: testGraphCatalog,
  leaseMs: 10_000,
  sweepMs: 5_000,
  concurrency: Number(concurrency),
  connections: connections ? Number(connections) : undefined,
});
process.stdout.write(`ready ${worker.workerId}\n`);
process.on("SIGUSR2", () => counts.clear());
process.on("SIGTERM", () => {
  writeFileSync(`${process.env.MODEX_COST_OUT}/${process.pid}.json`, JSON.stringify({ counts: [...counts], stats: worker.stats }));
  void worker.stop(2000).then(() => process.exit(0));
});
