import { createInMemoryCoordinator, createNullCoordinator } from "../server/graph/persistence/factories";
import { approvalGraph, fanOut, linearChain, twoNodeLoop } from "../server/graph/testing/fixtures";
import { CYCLE_WARM_UP, median, report, time } from "./measure";

/**
 * In-memory engine figures. Each scenario lives in its own function so its graphs and stores are
 * garbage before the next one starts, and that garbage is collected between scenarios (when the
 * process runs with --expose-gc, as `npm run bench` does) so no scenario pays for its predecessor's.
 */
export async function runEngineBench(): Promise<void> {
  for (const scenario of [linearChainBench, loopBench, fanOutBench, fanOutInMemoryBench, interruptBench]) {
    await scenario();
    collectGarbage();
  }
}

const collectGarbage = (): void => (globalThis as { gc?: () => void }).gc?.();

async function linearChainBench(): Promise<void> {
  const chain = linearChain(100);
  const fresh = await time(1000, () => chain.invoke(null, { coordinator: createInMemoryCoordinator() }));
  report("linear_chain_100_per_node", (median(fresh) * 1000) / 102, "us");
  const shared = createInMemoryCoordinator();
  const perShared = await time(300, () => chain.invoke(null, { coordinator: shared }));
  report("linear_chain_100_per_node_shared_store_300_runs", (median(perShared) * 1000) / 102, "us");
}

async function loopBench(): Promise<void> {
  const loop = twoNodeLoop(1000);
  const perLoop = await time(50, () => loop.invoke(null, { coordinator: createInMemoryCoordinator() }));
  report("two_node_loop_1000_per_node", (median(perLoop) * 1000) / 2002, "us");
}

// Fan-out compares with LangGraph.js without a checkpointer: the Null coordinator persists nothing.
// The two widths run interleaved (ten 1,000-branch runs, then one of 10,000, fifteen times), so both see
// the same machine and the same optimised code: measured one after the other, the ratio moved 3x
// between processes with the 1,000-branch median alone.
async function fanOutBench(): Promise<void> {
  const small = fanOut(1000);
  const big = fanOut(10_000);
  const runSmall = () => small.invoke(null, { coordinator: createNullCoordinator() });
  const runBig = () => big.invoke(null, { coordinator: createNullCoordinator() });
  for (let warmUp = 0; warmUp < 6; warmUp++) {
    for (let i = 0; i < 3; i++) await runSmall();
    await runBig();
  }
  const t1k: number[] = [];
  const t10k: number[] = [];
  for (let round = 0; round < 15; round++) {
    t1k.push(...(await time(10, runSmall, 0)));
    t10k.push(...(await time(1, runBig, 0)));
  }
  report("fan_out_1000_per_run", median(t1k), "ms");
  report("fan_out_10000_per_run", median(t10k), "ms");
  report("fan_out_10000_over_1000", median(t10k) / median(t1k), "x");
}

async function fanOutInMemoryBench(): Promise<void> {
  const small = fanOut(1000);
  const withStore = await time(30, () => small.invoke(null, { coordinator: createInMemoryCoordinator() }));
  report("fan_out_1000_per_run_in_memory_store", median(withStore), "ms");
}

async function interruptBench(): Promise<void> {
  const approval = approvalGraph();
  const cycles = await time(1000, async () => {
    const ctx = approval.createContext({ input: "x", coordinator: createInMemoryCoordinator() });
    await approval.run(ctx).catch(() => undefined);
    await approval.resume(ctx, "yes");
  }, CYCLE_WARM_UP);
  report("interrupt_resume_cycle", median(cycles) * 1000, "us");
}
