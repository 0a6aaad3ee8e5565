import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childCommand, crashAndRecover, expectFanOutsCompleted, tallyKills } from "../testing/crash-cycles";
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

describe("crash recovery on PostgreSQL with real processes", () => {
  let outDir: string;
  let command: string[];
  const databases: PgTestDatabase[] = [];
  beforeAll(async () => {
    mkdirSync(path.resolve(".tmp"), { recursive: true });
    // Inside the repository, so the bundle resolves pg from its node_modules.
    outDir = mkdtempSync(path.resolve(".tmp", "pg-crash-recovery-"));
    command = await childCommand({ entry: WORKER, outDir, external: ["pg", "better-sqlite3"] });
  });
  afterAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    for (const d of databases) await d[Symbol.asyncDispose]();
  });

  async function crashDatabase(seed: number) {
    const database = await PgTestDatabase.create();
    databases.push(database);
    const run = await crashAndRecover({
      command,
      args: [database.url, String(BRANCHES), String(CONCURRENCY)],
      seed,
      kills: KILLS_PER_SEED,
      idPrefix: "pgcrash",
      maxAfterNodes: 60,
      unfinished: () => unfinishedInstances(database.url),
    });
    return { database, ...run };
  }

  it(`survives ${SEEDS.length * KILLS_PER_SEED} SIGKILLs across ${SEEDS.length} databases: every instance completes, END holds each branch once, no open ledger rows`, async () => {
    const runs = await Promise.all(SEEDS.map(crashDatabase));
    for (const { database, ids } of runs) await expectFanOutsCompleted(new PgCoordinator(database.open()), ids, BRANCHES);
    expect(tallyKills("pg crash recovery", runs)).toBe(SEEDS.length * KILLS_PER_SEED);
  }, 180_000);
});
