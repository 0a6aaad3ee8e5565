import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { EventListener } from "../server/cluster/event-listener";
import { ClusterFixture } from "../server/cluster/testing/cluster-fixture";
import { chainGraph } from "../server/cluster/testing/cluster-graphs";
import { bundleWorkerChild, spawnWorkerChild, type WorkerChild } from "../server/cluster/testing/child-processes";
import { cpuBetween, readCpu } from "./cpu-usage";
import { report } from "./measure";

/**
 * Cluster figures (server/cluster), each on a fresh database, with worker child processes:
 * - cluster_chain10_per_s_<n>_workers: instances of a 10-node durable chain completed per second by n
 *   worker processes (all instances created with their jobs in one transaction, timed until the last
 *   completes), after an untimed warm-up round of as many chains; cluster_chain10_speedup_2_workers:
 *   the 2-worker figure over the 1-worker one;
 * - cluster_chain10_busy_cores_<n>_workers: the machine's busy cores meanwhile (of all it has; other
 *   processes count too), and the CPU each instance cost in the workers and in PostgreSQL: when one
 *   worker already keeps every core busy, more workers on this machine cannot be faster;
 * - cluster_event_latency_p95: from an engine event's emission in a worker (before its commit) to a
 *   LISTENing process reading it from the event table (an upper bound of commit → listener), p50 and
 *   p95 over a light load (20 chains of 10 nodes that each wait 20 ms, after a warm-up round).
 */
const INSTANCES = 400;
const CONCURRENCY = 32;
/**
 * Chains run before the timed round. A worker process starts with its code not yet optimised by V8:
 * measured from its start, one worker took ~5.4 ms of CPU per chain over 400 chains and 3.2–3.5 ms over
 * the next 400, and two workers, each paying that start on half the chains, 7.4–8.0 → 4.2–4.3 ms.
 * Workers run for hours: the timed round is what they cost once started (docs/cluster.md, "A second
 * worker's cost per chain").
 */
const WARM_UP = 400;

async function withWorkers<T>(fx: ClusterFixture, command: string[], n: number, fn: (pids: number[]) => Promise<T>): Promise<T> {
  const workers: WorkerChild[] = Array.from({ length: n }, () =>
    spawnWorkerChild(command, { url: fx.url, leaseMs: 10_000, sweepMs: 5_000, concurrency: CONCURRENCY, quiet: true }),
  );
  try {
    await Promise.all(workers.map((w) => w.ready));
    return await fn(workers.map((w) => w.process.pid!));
  } finally {
    for (const w of workers) w.process.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
  }
}

/** The fixture is disposed at the end (no `await using`: Node 20 runs the bundled bench). */
async function onFreshDatabase<T>(fn: (fx: ClusterFixture) => Promise<T>): Promise<T> {
  const fx = await ClusterFixture.create();
  try {
    return await fn(fx);
  } finally {
    await fx[Symbol.asyncDispose]();
  }
}

function throughput(command: string[], workers: number): Promise<number> {
  return onFreshDatabase((fx) =>
    withWorkers(fx, command, workers, async (pids) => {
      const graph = chainGraph(10);
      const warmUp = Array.from({ length: WARM_UP }, (_, i) => ({ instanceId: `w${i}`, input: i }));
      await fx.control.createMany({ graph, inputs: warmUp });
      await fx.until(async () => (await fx.countStatus("completed")) === WARM_UP, 300_000, "the warm-up completed");
      const inputs = Array.from({ length: INSTANCES }, (_, i) => ({ instanceId: `t${i}`, input: i }));
      const before = readCpu(pids);
      await fx.control.createMany({ graph, inputs });
      await fx.until(async () => (await fx.countStatus("completed")) === WARM_UP + INSTANCES, 300_000, "all completed");
      const after = readCpu(pids);
      const cpu = cpuBetween(before, after);
      const suffix = `${workers}_worker${workers > 1 ? "s" : ""}`;
      report(`cluster_chain10_busy_cores_${suffix}`, cpu.busyCores, `of ${cpu.cores} cores`);
      report(`cluster_chain10_worker_cpu_per_instance_${suffix}`, (cpu.processSeconds * 1000) / INSTANCES, "ms");
      report(`cluster_chain10_postgres_cpu_per_instance_${suffix}`, (cpu.postgresSeconds * 1000) / INSTANCES, "ms");
      return INSTANCES / ((after.at - before.at) / 1000);
    }),
  );
}

function eventLatencyP95(command: string[]): Promise<number> {
  return onFreshDatabase((fx) => eventLatencyOn(fx, command));
}

async function eventLatencyOn(fx: ClusterFixture, command: string[]): Promise<number> {
  const listener = await EventListener.start({ url: fx.url });
  const latencies: number[] = [];
  let measuring = false;
  listener.subscribe((e) => {
    if (measuring) latencies.push(Date.now() - e.createdAt);
  });
  try {
    await withWorkers(fx, command, 1, async () => {
      const graph = chainGraph(10, 20);
      // The first round warms the worker up (JIT, connections, prepared statements); the second is measured.
      for (const round of [0, 1]) {
        measuring = round === 1;
        const inputs = Array.from({ length: 20 }, (_, i) => ({ instanceId: `l${round}_${i}`, input: i }));
        await fx.control.createMany({ graph, inputs });
        await fx.until(async () => (await fx.countStatus("completed")) === 20 * (round + 1), 60_000, "all completed");
        await new Promise((r) => setTimeout(r, 200));
      }
    });
  } finally {
    await listener.close();
  }
  latencies.sort((a, b) => a - b);
  report("cluster_event_latency_p50", latencies[Math.floor(latencies.length * 0.5)], "ms");
  return latencies[Math.floor(latencies.length * 0.95)];
}

export async function clusterFigures(): Promise<void> {
  mkdirSync(path.resolve(".tmp"), { recursive: true });
  const outDir = mkdtempSync(path.resolve(".tmp", "cluster-bench-"));
  try {
    const command = await bundleWorkerChild(outDir);
    const perSecond = new Map<number, number>();
    for (const n of [1, 2, 4]) {
      perSecond.set(n, await throughput(command, n));
      report(`cluster_chain10_per_s_${n}_worker${n > 1 ? "s" : ""}`, perSecond.get(n)!, "instances/s");
    }
    report("cluster_chain10_speedup_2_workers", perSecond.get(2)! / perSecond.get(1)!, "x");
    report("cluster_event_latency_p95", await eventLatencyP95(command), "ms");
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
