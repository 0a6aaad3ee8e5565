import { createInMemoryCoordinator } from "../server/graph/persistence/factories";
import { approvalGraph, fanOut, linearChain, twoNodeLoop } from "../server/graph/testing/fixtures";
import { median, report, time } from "./measure";

/** In-memory engine figures. Each run gets a fresh in-memory store unless the name says shared. */
export async function runEngineBench(): Promise<void> {
  const chain = linearChain(100);
  const perChain = await time(1000, () => chain.invoke(null, { coordinator: createInMemoryCoordinator() }));
  report("linear_chain_100_per_node", (median(perChain) * 1000) / 102, "us");
  const shared = createInMemoryCoordinator();
  const perShared = await time(300, () => chain.invoke(null, { coordinator: shared }));
  report("linear_chain_100_per_node_shared_store_300_runs", (median(perShared) * 1000) / 102, "us");

  const loop = twoNodeLoop(1000);
  const perLoop = await time(50, () => loop.invoke(null, { coordinator: createInMemoryCoordinator() }));
  report("two_node_loop_1000_per_node", (median(perLoop) * 1000) / 2002, "us");

  const fan1k = fanOut(1000);
  const t1k = median(await time(50, () => fan1k.invoke(null, { coordinator: createInMemoryCoordinator() })));
  report("fan_out_1000_per_run", t1k, "ms");
  const fan10k = fanOut(10_000);
  const t10k = median(await time(7, () => fan10k.invoke(null, { coordinator: createInMemoryCoordinator() })));
  report("fan_out_10000_per_run", t10k, "ms");
  report("fan_out_10000_over_1000", t10k / t1k, "x");

  const approval = approvalGraph();
  const cycles = await time(1000, async () => {
    const ctx = approval.createContext({ input: "x", coordinator: createInMemoryCoordinator() });
    await approval.run(ctx).catch(() => undefined);
    await approval.resume(ctx, "yes");
  });
  report("interrupt_resume_cycle", median(cycles) * 1000, "us");
}
