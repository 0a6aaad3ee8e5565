import { spawn } from "node:child_process";
import path from "node:path";
import { expect } from "vitest";
import { END } from "@/server/graph/names";
import type { GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import { seededRandom } from "./seeded-random";

/**
 * The parent's side of the crash tests on real processes (crash-recovery.int.test.ts on SQLite,
 * pg-crash-recovery.int.test.ts on PostgreSQL): start a child on the database (crash-fan-out.ts is its
 * side), SIGKILL it at a random point, again and again, then let one finish and check what it left.
 */

/**
 * How to start the child `entry`: bundled once with esbuild (tsx's own dependency) into `outDir`, it
 * starts in ~0.2 s; through tsx, the fallback, in ~1 s. `outDir` is inside the repository, so that the
 * `external` packages resolve from its node_modules.
 */
export async function childCommand(options: { entry: string; outDir: string; external: string[] }): Promise<string[]> {
  try {
    const { build } = await import("esbuild");
    const outfile = path.join(options.outDir, `${path.basename(options.entry, ".ts")}.mjs`);
    await build({
      entryPoints: [options.entry],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      external: options.external,
      tsconfig: path.resolve("tsconfig.json"),
      logLevel: "error",
    });
    return [outfile];
  } catch {
    return ["--import", "tsx", options.entry];
  }
}

interface Cycle {
  killed: boolean;
  done: boolean;
}

/** When to kill a child: after it reported `afterNodes` completed nodes, plus `delayMs`. */
interface KillPoint {
  afterNodes: number;
  delayMs: number;
}

/** Runs one child; with a kill point, SIGKILLs it there (unless it finished first). */
function runChild(command: string[], args: string[], kill: KillPoint | null): Promise<Cycle> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...command, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let armed = kill !== null;
    let completedNodes = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      out += text;
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 46) completedNodes++; // "."
      if (armed && out.includes("ready") && completedNodes >= kill!.afterNodes) {
        armed = false;
        setTimeout(() => child.kill("SIGKILL"), kill!.delayMs);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      const done = out.includes("done");
      if (signal === "SIGKILL") resolve({ killed: !done, done });
      else if (code === 0 && done) resolve({ killed: false, done });
      else reject(new Error(`worker exited with ${code ?? signal}:\n${err}`));
    });
  });
}

/**
 * Kills one database's children `kills` times, then lets the last child finish. Instances are added four
 * at a time, named `<idPrefix>_<seed>_<n>`: at first, and whenever a child finished everything before
 * its kill (so the next one has work to be killed in). `midRun` counts the kills that left an instance
 * unfinished.
 */
export async function crashAndRecover(options: {
  command: string[];
  /** The child's arguments before the instance ids: the database, branches, concurrency. */
  args: string[];
  seed: number;
  kills: number;
  idPrefix: string;
  /** Kill points are drawn from 0 to this many completed nodes. */
  maxAfterNodes: number;
  /** Instances a killed child left unfinished (running, or marked crashed by a recovery). */
  unfinished(): number | Promise<number>;
}): Promise<{ ids: string[]; kills: number; midRun: number }> {
  const random = seededRandom(options.seed);
  const ids: string[] = [];
  const addInstances = () => {
    for (let k = 0; k < 4; k++) ids.push(`${options.idPrefix}_${options.seed}_${ids.length}`);
  };
  addInstances();
  const args = () => [...options.args, ...ids];
  let kills = 0;
  let midRun = 0;
  while (kills < options.kills) {
    // Kill points are counted in completed nodes (so machine load does not move them), then a short
    // random delay lands the signal anywhere in between: inside a node, a commit, a recovery.
    const kill = { afterNodes: Math.floor(random() * options.maxAfterNodes), delayMs: random() * 3 };
    const cycle = await runChild(options.command, args(), kill);
    if (cycle.killed) {
      kills++;
      if ((await options.unfinished()) > 0) midRun++;
    }
    if (cycle.done) addInstances();
  }
  const last = await runChild(options.command, args(), null);
  expect(last.done).toBe(true);
  return { ids, kills, midRun };
}

/** Logs the kills of `runs` and checks that at least half left an instance unfinished (landed inside runs, not only between them); returns how many. */
export function tallyKills(label: string, runs: readonly { kills: number; midRun: number }[]): number {
  const kills = runs.reduce((n, r) => n + r.kills, 0);
  const midRun = runs.reduce((n, r) => n + r.midRun, 0);
  console.log(`${label}: ${kills} kills, ${midRun} of them leaving instances unfinished`);
  expect(midRun).toBeGreaterThanOrEqual(kills / 2);
  return kills;
}

/** Every fan-out instance completed once: END holds each branch once, no open ledger row, no node left RUNNING. */
export async function expectFanOutsCompleted(coordinator: GraphPersistenceCoordinator, ids: readonly string[], branches: number): Promise<void> {
  const branchNames = Array.from({ length: branches }, (_, i) => `b${i}`);
  for (const instanceId of ids) {
    const record = await coordinator.instances.load(instanceId);
    expect(record, instanceId).toMatchObject({ status: "completed", version: 1 });
    const state = (await coordinator.instances.loadState(instanceId)) as { result: { content: unknown }[] };
    expect(state.result.map((p) => p.content).sort(), instanceId).toEqual([...branchNames].sort());
    const io = await coordinator.instances.ioRecords(instanceId);
    expect(io.map((r) => r.output?.length)).toEqual([branches]);

    const ledger = await coordinator.delivers.listByInstance(instanceId);
    expect(ledger.filter((r) => r.status !== "CONSUMED_COMPLETED"), instanceId).toEqual([]);
    expect(ledger.filter((r) => r.targetNode === END)).toHaveLength(branches);

    // Each node completed exactly once; every other attempt was a crash, none left RUNNING.
    const invocations = await coordinator.nodes.listByInstance(instanceId);
    const completed = invocations.filter((i) => i.status === "COMPLETED").map((i) => i.nodeName);
    expect(completed.sort(), instanceId).toEqual(["__start__", "fan", ...branchNames, END].sort());
    expect(invocations.filter((i) => i.status !== "COMPLETED" && i.status !== "CRASHED"), instanceId).toEqual([]);
  }
}
