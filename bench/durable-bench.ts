import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeGraphDatabase, openGraphDatabase } from "../server/db/graph-database";
import { SqliteCoordinator } from "../server/db/sqlite-coordinator";
import { approvalGraph, fanOut, linearChain } from "../server/graph/testing/fixtures";
import { CYCLE_WARM_UP, median, report, time } from "./measure";

/**
 * Durable figures: the engine on a SQLite file (WAL, synchronous=NORMAL), every node invocation
 * committed before its successor starts. All runs share one database, as a server's would.
 */
export async function runDurableBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-bench-"));
  const db = openGraphDatabase(path.join(dir, "bench.db"), { backgroundCheckpoint: true });
  try {
    const coordinator = new SqliteCoordinator(db);

    const chain = linearChain(100);
    const perChain = await time(200, () => chain.invoke(null, { coordinator }));
    report("durable_linear_chain_100_per_node", (median(perChain) * 1000) / 102, "us");

    const fan = fanOut(1000);
    report("durable_fan_out_1000_join_per_run", median(await time(20, () => fan.invoke(null, { coordinator }))), "ms");

    const approval = approvalGraph();
    const cycles = await time(500, async () => {
      const ctx = approval.createContext({ input: "x", coordinator });
      await approval.run(ctx).catch(() => undefined);
      await approval.resume(ctx, "yes");
    }, CYCLE_WARM_UP);
    report("durable_interrupt_resume_cycle", median(cycles) * 1000, "us");

    // 10,000 finished instances in a fresh database, then the "latest 50" listing.
    const listDb = openGraphDatabase(path.join(dir, "list.db"));
    try {
      const store = new SqliteCoordinator(listDb).instances;
      listDb.transaction(() => {
        for (let i = 0; i < 10_000; i++) {
          const rec = store.create({ graphName: `g${i % 20}`, nodeIdMap: { a: "node_a" }, input: { content: i } });
          store.transition(rec.instanceId, i % 10 === 0 ? "failed" : "completed");
        }
      })();
      const lists = await time(200, async () => store.list({ limit: 50 }));
      report("durable_list_latest_50_of_10000", median(lists), "ms");
    } finally {
      listDb.close();
    }
  } finally {
    closeGraphDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}
