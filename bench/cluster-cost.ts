import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { build } from "esbuild";
import { ClusterFixture } from "../server/cluster/testing/cluster-fixture";
import { chainGraph } from "../server/cluster/testing/cluster-graphs";

/**
 * What a 10-node chain costs on a cluster, per chain, for A/B comparisons (docs/cluster.md, "A second
 * worker's cost per chain"): `npm run bench:cluster-cost -- <variant>…`, each variant on a fresh
 * database, in the order given (alternate them: the machine is shared). A variant is
 * `<workers>[w<warm-up chains>][c<concurrency>][p<connections>][h]`, e.g. `1w400 2w400 2w400p3`
 * (h: a process that only spins runs alongside). Prints per chain: chains/s; the workers' main-thread
 * CPU (schedstat) and whole-process user + system CPU, context switches (voluntary / involuntary);
 * the same for the bench database's own PostgreSQL backends (not other databases'); transactions
 * (pg_stat_database); the statements the workers sent, by connection and statement (COST_TOP=n lists
 * the n most frequent); wait events of active backends, sampled every 20 ms (mean backends).
 */
const CHAINS = Number(process.env.COST_CHAINS ?? 400);

interface Usage { ns: number; jiffies: number; vcs: number; nvcs: number }

function usage(pid: number): Usage | null {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
    return { ns, jiffies: Number(rest[11]) + Number(rest[12]), vcs: field("voluntary_ctxt_switches"), nvcs: field("nonvoluntary_ctxt_switches") };
  } catch {
    return null;
  }
}

const read = (pids: Iterable<number>) => new Map([...pids].map((p) => [p, usage(p)] as const));

/** Per chain between two readings (a process first seen in `b` counts from 0). */
function perChain(a: Map<number, Usage | null>, b: Map<number, Usage | null>) {
  const sum = { ns: 0, jiffies: 0, vcs: 0, nvcs: 0 };
  for (const [pid, u] of b) {
    if (!u) continue;
    const before = a.get(pid) ?? { ns: 0, jiffies: 0, vcs: 0, nvcs: 0 };
    for (const k of Object.keys(sum) as (keyof Usage)[]) sum[k] += u[k] - before[k];
  }
  const r = (x: number) => Math.round(x * 100) / 100;
  return { mainMs: r(sum.ns / 1e6 / CHAINS), processMs: r((sum.jiffies * 10) / CHAINS), vcs: r(sum.vcs / CHAINS), nvcs: r(sum.nvcs / CHAINS) };
}

function startChild(command: string, url: string, concurrency: number, connections: number | undefined, outDir: string) {
  const child = spawn(process.execPath, [command, url, String(concurrency), ...(connections ? [String(connections)] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, MODEX_COST_OUT: outDir },
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("ready ") && resolve());
    child.on("exit", (code) => reject(new Error(`worker exited (${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, ready, exited };
}

async function variant(spec: string, command: string, outDir: string) {
  const workers = Number(/^\d+/.exec(spec)?.[0] ?? 1);
  const warm = Number(/w(\d+)/.exec(spec)?.[1] ?? 0);
  const concurrency = Number(/c(\d+)/.exec(spec)?.[1] ?? 32);
  const connections = /p(\d+)/.exec(spec)?.[1];
  const fx = await ClusterFixture.create();
  const spinner = spec.includes("h") ? spawn(process.execPath, ["-e", "for(;;){}"]) : null;
  const children = Array.from({ length: workers }, () => startChild(command, fx.url, concurrency, connections ? Number(connections) : undefined, outDir));
  const sampler = new pg.Client({ connectionString: fx.url, application_name: "modex-cost-sampler" });
  try {
    await Promise.all(children.map((c) => c.ready));
    await sampler.connect();
    const graph = chainGraph(10);
    const run = async (prefix: string, n: number, done: number) => {
      await fx.control.createMany({ graph, inputs: Array.from({ length: n }, (_, i) => ({ instanceId: `${prefix}${i}`, input: i })) });
      await fx.until(async () => (await fx.countStatus("completed")) === done + n, 300_000, `${prefix} completed`);
    };
    if (warm > 0) await run("w", warm, 0);
    for (const c of children) c.child.kill("SIGUSR2");
    const db = fx.database.name;
    const backends = async () =>
      (await sampler.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> 'modex-test-web'", [db])).rows.map((r) => r.pid);
    const transactions = async () => {
      await sampler.query("SELECT pg_stat_clear_snapshot()");
      return (await sampler.query<{ n: string }>("SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1", [db])).rows[0].n;
    };
    const pids = children.map((c) => c.child.pid!);
    const seen = new Set(await backends());
    const [x0, w0, b0, t0] = [await transactions(), read(pids), read(seen), performance.now()];
    const waits = new Map<string, number>();
    let samples = 0;
    let sampling = true;
    const sampled = (async () => {
      while (sampling) {
        samples++;
        const rows = await sampler.query<{ w: string; pid: number }>(
          "SELECT pid, coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS w FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid() AND application_name <> 'modex-test-web'",
          [db],
        );
        for (const r of rows.rows) (seen.add(r.pid), waits.set(r.w, (waits.get(r.w) ?? 0) + 1));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await run("t", CHAINS, warm);
    const [w1, b1, t1] = [read(pids), read(seen), performance.now()];
    sampling = false;
    await sampled;
    for (const b of await backends()) seen.add(b);
    await new Promise((r) => setTimeout(r, 600)); // pg_stat_database is reported at a backend's next idle moment
    const x1 = await transactions();
    for (const c of children) c.child.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    const statements = new Map<string, number>();
    const started: number[] = [];
    for (const pid of pids) {
      const out = JSON.parse(readFileSync(path.join(outDir, `${pid}.json`), "utf8")) as { counts: [string, number][]; stats: { started: number; lost: number } };
      started.push(out.stats.started);
      for (const [k, v] of out.counts) statements.set(k, (statements.get(k) ?? 0) + v);
    }
    const total = [...statements.values()].reduce((a, b) => a + b, 0);
    console.log(
      JSON.stringify({
        variant: spec,
        load: readFileSync("/proc/loadavg", "utf8").split(" ")[0],
        chainsPerSecond: Math.round(CHAINS / ((t1 - t0) / 1000)),
        workers: perChain(w0, w1),
        postgres: perChain(b0, b1),
        backends: seen.size,
        transactions: Math.round(((Number(x1) - Number(x0)) / CHAINS) * 100) / 100,
        statements: Math.round((total / CHAINS) * 100) / 100,
        started,
        waits: Object.fromEntries([...waits].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => [k, Math.round((v / samples) * 100) / 100])),
      }),
    );
    const top = Number(process.env.COST_TOP ?? 0);
    for (const [k, v] of [...statements].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(v / CHAINS).toFixed(3)} ${k}`);
  } finally {
    for (const c of children) c.child.kill("SIGKILL");
    spinner?.kill("SIGKILL");
    await sampler.end().catch(() => undefined);
    await fx[Symbol.asyncDispose]();
  }
}

mkdirSync(path.resolve(".tmp"), { recursive: true });
const outDir = mkdtempSync(path.resolve(".tmp", "cluster-cost-"));
try {
  const command = path.join(outDir, "child.mjs");
  await build({ entryPoints: [path.resolve("bench/cluster-cost-child.ts")], outfile: command, bundle: true, platform: "node", format: "esm", packages: "external", tsconfig: path.resolve("tsconfig.json"), logLevel: "error" });
  for (const spec of process.argv.slice(2)) await variant(spec, command, outDir);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
