import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeGraphDatabase, openGraphDatabase } from "../server/db/graph-database";
import { SqliteCoordinator } from "../server/db/sqlite-coordinator";
import { approvalGraph, fanOut, linearChain } from "../server/graph/testing/fixtures";
import { CYCLE_WARM_UP, median, report, time } from "./measure";
import { z } from "zod";
import { Graph } from "../server/graph/graph";
import { END, START } from "../server/graph/names";
import { FunctionNode } from "../server/graph/nodes/function-node";
import { defineGraphState } from "../server/graph/state";

/** START → n0 … nN-1 → END, each node adding one to `count`. */
function countingChain(n: number) {
  const g = new Graph({ name: `counting${n}`, state: defineGraphState({ count: z.number().default(0) }) });
  let prev = START;
  for (let i = 0; i < n; i++) {
    g.addNode(new FunctionNode(`n${i}`, (ctx, input) => {
      ctx.state.count++;
      return input[0]?.content ?? null;
    })).addEdge(prev, `n${i}`);
    prev = `n${i}`;
  }
  g.addEdge(prev, END);
  return g.compile();
}

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

    // The same chain with every node changing the state: each completion also keeps a state snapshot
    // (state_snapshots, for replay and forks); the chain above changes none and keeps almost none.
    const counting = countingChain(100);
    const perCounting = await time(200, () => counting.invoke(null, { coordinator }));
    report("durable_linear_chain_100_state_changing_per_node", (median(perCounting) * 1000) / 102, "us");

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
