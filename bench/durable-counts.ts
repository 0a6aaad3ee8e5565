import { fstatSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeGraphDatabase, openGraphDatabase } from "../server/db/graph-database";
import { SqliteCoordinator } from "../server/db/sqlite-coordinator";
import { approvalGraph, fanOut, linearChain } from "../server/graph/testing/fixtures";

/**
 * Deterministic costs of the durable scenarios, which wall-clock on a shared machine cannot resolve:
 * statements (better-sqlite3's run/get/all), commits and WAL frames (each a page written, two `pwrite`s)
 * per interrupt + resume cycle, per chain node and per 1,000-branch fan-out, after a history like the
 * durable bench's. Not part of `npm run bench`; run it alone:
 *   npx esbuild bench/durable-counts.ts --bundle --platform=node --format=esm --packages=external \
 *     --log-level=warning --outdir=.tmp/bench-db && node .tmp/bench-db/durable-counts.js
 * MODEX_MIGRATIONS points at another migrations folder (an older checkout's, for a before/after).
 */
const dir = mkdtempSync(path.join(tmpdir(), "modex-counts-"));
const file = path.join(dir, "counts.db");
const db = openGraphDatabase(file, { migrationsDir: process.env.MODEX_MIGRATIONS });
try {
  // No checkpoint: the WAL only grows, so its size counts the frames written.
  db.pragma("wal_autocheckpoint = 0");
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const coordinator = new SqliteCoordinator(db);
  const chain = linearChain(100);
  const fan = fanOut(1000);
  const approval = approvalGraph();
  const cycle = async () => {
    const ctx = approval.createContext({ input: "x", coordinator });
    await approval.run(ctx).catch(() => undefined);
    await approval.resume(ctx, "yes");
  };
  for (let i = 0; i < 210; i++) await chain.invoke(null, { coordinator });
  for (let i = 0; i < 20; i++) await fan.invoke(null, { coordinator });
  for (let i = 0; i < 500; i++) await cycle();

  let statements = 0;
  let commits = 0;
  let counting = false;
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ["run", "get", "all"]) {
    const original = proto[method];
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      if (counting) {
        statements++;
        if (this.source === "COMMIT") commits++;
      }
      return original.apply(this, args);
    };
  }
  const wal = openSync(`${file}-wal`, "r");
  const frames = () => Math.max(0, (fstatSync(wal).size - 32) / (24 + pageSize));

  const measure = async (label: string, runs: number, per: number, fn: () => Promise<unknown>) => {
    db.pragma("wal_checkpoint(TRUNCATE)");
    const before = frames();
    statements = commits = 0;
    counting = true;
    for (let i = 0; i < runs; i++) await fn();
    counting = false;
    const f = (n: number) => (n / runs / per).toFixed(2);
    console.log(`${label}: statements ${f(statements)}, commits ${f(commits)}, WAL frames ${f(frames() - before)}`);
  };
  await measure("durable_interrupt_resume_cycle", 200, 1, cycle);
  await measure("durable_linear_chain_100_per_node", 20, 102, () => chain.invoke(null, { coordinator }));
  await measure("durable_fan_out_1000_join_per_run", 3, 1, () => fan.invoke(null, { coordinator }));
} finally {
  closeGraphDatabase(db);
  rmSync(dir, { recursive: true, force: true });
}
