import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { END } from "@/server/graph/names";
import { linearChain } from "@/server/graph/testing/fixtures";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { recoverInstance } from "./testing/durable-run";
import { childCommand, crashAndRecover, expectFanOutsCompleted, tallyKills } from "./testing/crash-cycles";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

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

describe("crash recovery with real processes", () => {
  let outDir: string;
  let command: string[];
  const databases: TempDatabase[] = [];
  beforeAll(async () => {
    mkdirSync(path.resolve(".tmp"), { recursive: true });
    // Inside the repository, so the bundle resolves better-sqlite3 from its node_modules.
    outDir = mkdtempSync(path.resolve(".tmp", "crash-recovery-"));
    command = await childCommand({ entry: WORKER, outDir, external: ["better-sqlite3"] });
  });
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
    for (const d of databases) d[Symbol.dispose]();
  });

  async function crashDatabase(seed: number) {
    const temp = tempDatabase();
    databases.push(temp);
    temp.db.close(); // the children own the file until the checks
    const run = await crashAndRecover({
      command,
      args: [temp.file, String(BRANCHES), String(CONCURRENCY)],
      seed,
      kills: KILLS_PER_SEED,
      idPrefix: "crash",
      maxAfterNodes: 80,
      unfinished: () => unfinishedInstances(temp.file),
    });
    return { temp, ...run };
  }

  it(`survives ${SEEDS.length * KILLS_PER_SEED} SIGKILLs across ${SEEDS.length} databases: every instance completes, END holds each branch once, no open ledger rows`, async () => {
    // One database per seed, crashed concurrently: each has its own chain of child processes.
    const runs = await Promise.all(SEEDS.map(crashDatabase));
    for (const { temp, ids } of runs) await expectFanOutsCompleted(new SqliteCoordinator(temp.reopen()), ids, BRANCHES);
    expect(tallyKills("crash recovery", runs)).toBeGreaterThanOrEqual(50);
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
