import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { END } from "@/server/graph/names";
import { seededRandom } from "../testing/seeded-random";
import { PgCoordinator } from "./pg-coordinator";
import { PgTestDatabase } from "./testing/pg-test-database";

/**
 * Real crashes on PostgreSQL: a child process runs parallel fan-out instances and is SIGKILLed after a
 * random number of completed nodes (plus a random few milliseconds); the next child recovers whatever
 * was left RUNNING (marks it crashed, re-runs it with bootstrap RECOVERY on the stored state and frozen
 * node ids) and carries on. After the last kill a child runs everything to completion, and this process
 * checks the database. The children commit node steps asynchronously (the default), so this also shows
 * that a kill -9 of the engine's process loses no committed step.
 */

const SEEDS = [11, 23];
const KILLS_PER_SEED = 10;
const BRANCHES = 16;
const CONCURRENCY = 3;
const WORKER = path.join(import.meta.dirname, "testing", "pg-crash-worker.ts");
const BRANCH_NAMES = Array.from({ length: BRANCHES }, (_, i) => `b${i}`);

/** The worker bundled once with esbuild starts in ~0.2 s; tsx takes ~1 s. */
async function workerCommand(outDir: string): Promise<string[]> {
  try {
    const { build } = await import("esbuild");
    const outfile = path.join(outDir, "pg-crash-worker.mjs");
    await build({
      entryPoints: [WORKER],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      external: ["pg", "better-sqlite3"],
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

describe("crash recovery on PostgreSQL with real processes", () => {
  let outDir: string;
  let command: string[];
  const databases: PgTestDatabase[] = [];
  beforeAll(async () => {
    mkdirSync(path.resolve(".tmp"), { recursive: true });
    // Inside the repository, so the bundle resolves pg from its node_modules.
    outDir = mkdtempSync(path.resolve(".tmp", "pg-crash-recovery-"));
    command = await workerCommand(outDir);
  });
  afterAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    for (const d of databases) await d[Symbol.asyncDispose]();
  });

  /** Instances a killed child left unfinished (running, or marked crashed by a recovery). */
  async function unfinishedInstances(url: string): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM graph_instances WHERE is_latest AND status <> 'completed'`);
      return rows[0].n;
    } finally {
      await client.end();
    }
  }

  /** Kills one database's children KILLS_PER_SEED times, then lets the last child finish. */
  async function crashAndRecover(seed: number) {
    const random = seededRandom(seed);
    const database = await PgTestDatabase.create();
    databases.push(database);
    const ids: string[] = [];
    const addInstances = () => {
      for (let k = 0; k < 4; k++) ids.push(`pgcrash_${seed}_${ids.length}`);
    };
    addInstances();
    const args = () => [database.url, String(BRANCHES), String(CONCURRENCY), ...ids];
    let kills = 0;
    let midRun = 0;
    while (kills < KILLS_PER_SEED) {
      // Kill points are counted in completed nodes (so machine load does not move them), then a short
      // random delay lands the signal anywhere in between: inside a node, a commit, a recovery.
      const kill = { afterNodes: Math.floor(random() * 60), delayMs: random() * 3 };
      const cycle = await runChild(command, args(), kill);
      if (cycle.killed) {
        kills++;
        if ((await unfinishedInstances(database.url)) > 0) midRun++;
      }
      // Everything finished before the kill: give the next child new work to be killed in.
      if (cycle.done) addInstances();
    }
    const last = await runChild(command, args(), null);
    expect(last.done).toBe(true);
    return { database, ids, kills, midRun };
  }

  it(`survives ${SEEDS.length * KILLS_PER_SEED} SIGKILLs across ${SEEDS.length} databases: every instance completes, END holds each branch once, no open ledger rows`, async () => {
    const runs = await Promise.all(SEEDS.map(crashAndRecover));
    for (const { database, ids } of runs) {
      const coordinator = new PgCoordinator(database.open());
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
    console.log(`pg crash recovery: ${kills} kills, ${midRun} of them leaving instances unfinished`);
    expect(kills).toBe(SEEDS.length * KILLS_PER_SEED);
    // The kills landed inside runs, not only between them.
    expect(midRun).toBeGreaterThanOrEqual(kills / 2);
  }, 180_000);
});
