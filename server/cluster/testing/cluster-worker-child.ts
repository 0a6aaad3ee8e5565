/**
 * A worker process for the cluster tests and bench: node cluster-worker-child.mjs <database url>
 * <lease ms> <sweep ms> <concurrency> [<connections>]. Prints "ready <worker id>" once working, then a "." per completed
 * node (the kill test counts them; not with MODEX_CHILD_QUIET=1); runs until it is killed (SIGKILL in
 * the tests) or gets SIGTERM.
 */
import { ClusterWorker } from "../cluster-worker";
import { testGraphCatalog } from "./cluster-graphs";

const [url, leaseMs, sweepMs, concurrency, connections] = process.argv.slice(2);
const worker = await ClusterWorker.start({
  url,
  graphs: testGraphCatalog,
  leaseMs: Number(leaseMs),
  sweepMs: Number(sweepMs),
  concurrency: Number(concurrency),
  connections: connections ? Number(connections) : undefined,
  observer: process.env.MODEX_CHILD_QUIET
    ? undefined
    : {
        onEvent: (e) => {
          if (e.type === "node_completed") process.stdout.write(".");
        },
      },
});
process.stdout.write(`ready ${worker.workerId}\n`);
process.on("SIGTERM", () => {
  void worker.stop(2000).then(() => process.exit(0));
});
