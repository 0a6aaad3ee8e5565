import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { END } from "@/server/graph/names";
import { linearChain } from "@/server/graph/testing/fixtures";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { recoverInstance } from "./testing/durable-run";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";
import { seededRandom } from "./testing/seeded-random";

/**
 * Real crashes: a child process runs parallel fan-out instances on a SQLite file and is SIGKILLed after a
 * random number of completed nodes (plus a random few milliseconds); the next child recovers whatever was left RUNNING (marks
 * it crashed, re-runs it with bootstrap RECOVERY on the stored state and frozen node ids) and carries
 * on. After the last kill a child runs everything to completion, and this process checks the file.
 */

const SEEDS = [11, 23, 37, 41];
const KILLS_PER_SEED = 13;
const BRANCHES = 24;
const CONCURRENCY = 3;
const WORKER = path.join(import.meta.dirname, "testing", "crash-worker.ts");
const BRANCH_NAMES = Array.from({ length: BRANCHES }, (_, i) => `b${i}`);

/** The worker bundled once with esbuild (tsx's own dependency) starts in ~0.2 s; tsx takes ~1 s. */
async function workerCommand(outDir: string): Promise<string[]> {
  try {
    const { build } = await import("esbuild");
    const outfile = path.join(outDir, "crash-worker.mjs");
    await build({
      entryPoints: [WORKER],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      external: ["better-sqlite3"],
      tsconfig: path.resolve("tsconfig.json"),
      logLevel: "error",
    });
    return [outfile];
  } catch {
    return ["--import", "tsx", WORKER];
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

describe("crash recovery with real processes", () => {
  let outDir: string;
  let command: string[];
  const databases: TempDatabase[] = [];
  beforeAll(async () => {
    mkdirSync(path.resolve(".tmp"), { recursive: true });
    // Inside the repository, so the bundle resolves better-sqlite3 from its node_modules.
    outDir = mkdtempSync(path.resolve(".tmp", "crash-recovery-"));
    command = await workerCommand(outDir);
  });
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
    for (const d of databases) d[Symbol.dispose]();
  });

  /** Kills one database's children KILLS_PER_SEED times, then lets the last child finish. */
  async function crashAndRecover(seed: number) {
    const random = seededRandom(seed);
    const temp = tempDatabase();
    databases.push(temp);
    temp.db.close(); // the children own the file until the checks
    const ids: string[] = [];
    const addInstances = () => {
      for (let k = 0; k < 4; k++) ids.push(`crash_${seed}_${ids.length}`);
    };
    addInstances();
    const args = () => [temp.file, String(BRANCHES), String(CONCURRENCY), ...ids];
    let kills = 0;
    let midRun = 0;
    while (kills < KILLS_PER_SEED) {
      // Kill points are counted in completed nodes (so machine load does not move them), then a short
      // random delay lands the signal anywhere in between: inside a node, a commit, a recovery.
      const kill = { afterNodes: Math.floor(random() * 80), delayMs: random() * 3 };
      const cycle = await runChild(command, args(), kill);
      if (cycle.killed) {
        kills++;
        if (unfinishedInstances(temp.file) > 0) midRun++;
      }
      // Everything finished before the kill: give the next child new work to be killed in.
      if (cycle.done) addInstances();
    }
    const last = await runChild(command, args(), null);
    expect(last.done).toBe(true);
    return { temp, ids, kills, midRun };
  }

  /** Instances a killed child left unfinished (running, or marked crashed by a recovery), read from the file. */
  function unfinishedInstances(file: string): number {
    // Not read-only: after a SIGKILL the WAL index must be rebuilt, which a read-only connection cannot do.
    const db = new BetterSqlite3(file);
    try {
      return (db.prepare(`SELECT count(*) AS n FROM graph_instances WHERE is_latest = 1 AND status <> 'completed'`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  }

  it(`survives ${SEEDS.length * KILLS_PER_SEED} SIGKILLs across ${SEEDS.length} databases: every instance completes, END holds each branch once, no open ledger rows`, async () => {
    // One database per seed, crashed concurrently: each has its own chain of child processes.
    const runs = await Promise.all(SEEDS.map(crashAndRecover));
    for (const { temp, ids } of runs) {
      const coordinator = new SqliteCoordinator(temp.reopen());
      for (const instanceId of ids) {
        const record = await coordinator.instances.load(instanceId);
        expect(record, instanceId).toMatchObject({ status: "completed", version: 1 });
        const state = (await coordinator.instances.loadState(instanceId)) as { result: { content: unknown }[] };
        expect(state.result.map((p) => p.content).sort(), instanceId).toEqual([...BRANCH_NAMES].sort());
        const io = await coordinator.instances.ioRecords(instanceId);
        expect(io.map((r) => r.output?.length)).toEqual([BRANCHES]);

        const ledger = await coordinator.delivers.listByInstance(instanceId);
        expect(ledger.filter((r) => r.status !== "CONSUMED_COMPLETED"), instanceId).toEqual([]);
        expect(ledger.filter((r) => r.targetNode === END)).toHaveLength(BRANCHES);

        // Each node completed exactly once; every other attempt was a crash, none left RUNNING.
        const invocations = await coordinator.nodes.listByInstance(instanceId);
        const completed = invocations.filter((i) => i.status === "COMPLETED").map((i) => i.nodeName);
        expect(completed.sort(), instanceId).toEqual(["__start__", "fan", ...BRANCH_NAMES, END].sort());
        expect(invocations.filter((i) => i.status !== "COMPLETED" && i.status !== "CRASHED"), instanceId).toEqual([]);
      }
    }
    const kills = runs.reduce((n, r) => n + r.kills, 0);
    const midRun = runs.reduce((n, r) => n + r.midRun, 0);
    console.log(`crash recovery: ${kills} kills, ${midRun} of them leaving instances unfinished`);
    expect(kills).toBeGreaterThanOrEqual(50);
    // The kills landed inside runs, not only between them.
    expect(midRun).toBeGreaterThanOrEqual(kills / 2);
  }, 120_000);
});

describe("recovery of a near-complete instance", () => {
  it("END completed but the process died before the instance was marked completed: nothing runs again", async () => {
    using temp = tempDatabase();
    // The crash lands after END's completion committed, at the first step of finishing the instance.
    class DiesWhileFinishing extends SqliteCoordinator {
      override checkpointState(): never {
        throw new Error("killed");
      }
    }
    const chain = linearChain(2);
    const ctx = chain.createContext({ coordinator: new DiesWhileFinishing(temp.db), input: "go" });
    await expect(chain.run(ctx)).rejects.toThrow("killed");

    const coordinator = new SqliteCoordinator(temp.reopen());
    expect(await coordinator.instances.load(ctx.instanceId)).toMatchObject({ status: "running" });
    const result = await recoverInstance(linearChain(2), coordinator, ctx.instanceId);
    expect(result).toMatchObject({ status: "completed", reachedEnd: true });
    expect(result.result).toEqual([{ content: null, source: "n1" }]);
    expect((await coordinator.nodes.listByInstance(ctx.instanceId)).map((i) => i.nodeName)).toEqual(["__start__", "n0", "n1", END]);
    expect((await coordinator.instances.ioRecords(ctx.instanceId))[0].output).toEqual([{ content: null, source: "n1" }]);
  });
});
