// `npm run bench:load`: the production server under load, over real HTTP on loopback (not a timed test).
// Starts the production server (bench/production-server.mjs: `server.mjs`, what `npm run start` runs,
// built only when no build exists, with a fresh temporary data directory) and prints `name value unit` lines, each scenario bounded in count and
// time (the whole run gives up after BENCH_LOAD_TIMEOUT_S, default 300 s):
//   1. saving a 20,000-node spec (target ≤ 2 s), three revisions of it, once the examples and small
//      specs make 99 names, with /api/health probed meanwhile;
//   2. the spec list with those 100 specs, the big one included (target ≤ 50 ms);
//   3. five bursts of 200 concurrent creates of map-reduce (create p95 ≤ 300 ms) while /api/health is
//      probed every 10 ms (health p99 ≤ 50 ms during the bursts);
//   4. 1,000 map-reduce instances created 200 at a time, all completed (target ≤ 3 s after the first create).
// BENCH_LOAD_ONLY=specs,burst,many picks scenarios; BENCH_LOAD_ACCEPT_ENCODING: see `encoding`;
// BENCH_LOAD_CPU_PROF=<dir> starts the server with `node --cpu-prof` (the profile is written at exit);
// BENCH_LOAD_VERBOSE=1 prints each burst on stderr.
import { fork } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { startProductionServer } from "./production-server.mjs";
import { wideSpec } from "./wide-spec.mjs";

const TOKEN = "bench-load-token-0123456789abcdefghij";
const TIMEOUT_S = Number(process.env.BENCH_LOAD_TIMEOUT_S ?? 300);
const BURST = 200;
const BURSTS = 5;
const BIG_NODES = 20_000;
const SPECS = 100;
const MANY = 1_000;
const HEALTH_EVERY_MS = 10;
const HEALTH_IN_FLIGHT = 10;

const print = (name, value, unit) => console.log(`${name} ${typeof value === "number" ? round(value) : value} ${unit}`);
const round = (x) => (Math.abs(x) >= 100 ? Math.round(x) : Math.round(x * 10) / 10);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServer() {
  const profDir = process.env.BENCH_LOAD_CPU_PROF;
  if (profDir) mkdirSync(profDir, { recursive: true });
  const nodeArgs = profDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profDir)}`] : [];
  const server = await startProductionServer({ name: "load", token: TOKEN, nodeArgs });
  /** CPU time the server process has used so far (Linux), or NaN. */
  return { ...server, cpuMs: () => processCpuMs(server.pid) };
}

/** utime + stime of a process, from /proc (clock ticks of 10 ms on Linux). */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

// BENCH_LOAD_ACCEPT_ENCODING=identity asks for uncompressed answers (fetch, like browsers, accepts gzip,
// and Next.js then compresses every response, small ones included): to measure what compression costs.
const encoding = process.env.BENCH_LOAD_ACCEPT_ENCODING ? { "accept-encoding": process.env.BENCH_LOAD_ACCEPT_ENCODING } : {};
const auth = { authorization: `Bearer ${TOKEN}`, ...encoding };

async function rest(base, method, route, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(data).slice(0, 300)}`);
  return data;
}

async function saveSpec(base, yaml) {
  const res = await fetch(`${base}/api/trpc/specs.save`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ yaml }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`specs.save: ${body.error.message.slice(0, 300)}`);
  return body.result.data;
}

const smallSpec = (i) =>
  [`name: load-${i}`, `version: "${i}"`, `description: small spec ${i}`, "nodes:", "  - { name: a, node_type: function, config: { op: identity } }", "edges:", "  - { from: __start__, to: a }", "  - { from: a, to: __end__ }", ""].join("\n");

/** Fills the spec table up to SPECS - 1 specs, then saves the big one (timed). */
async function specScenarios(base) {
  const existing = (await rest(base, "GET", "/api/graphs/specs")).length;
  for (let i = existing; i < SPECS - 1; i++) await saveSpec(base, smallSpec(i));
  const saves = [];
  const stopProbe = await healthProbe(base);
  for (let i = 1; i <= 3; i++) {
    // Three revisions of one name (the description differs), so the list still holds one big spec.
    const yaml = wideSpec({ name: "load-big", chains: 198, depth: 101, version: String(i), description: `${BIG_NODES} nodes, revision ${i}` });
    const t0 = performance.now();
    const saved = await saveSpec(base, yaml);
    saves.push(performance.now() - t0);
    if (!saved.created) throw new Error("the big spec was not created");
  }
  const health = await stopProbe();
  print("spec_save_20000_nodes_median", quantile(saves, 0.5), "ms");
  print("spec_save_20000_nodes_max", Math.max(...saves), "ms");
  print("spec_save_health_p99", quantile(health, 0.99), "ms");

  await listScenario(base, "spec_list");
}

/** 30 spec lists in a row; the big spec must be listed with its node count. */
async function listScenario(base, name) {
  const times = [];
  let count = 0;
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    const list = await rest(base, "GET", "/api/graphs/specs");
    times.push(performance.now() - t);
    count = list.length;
    const big = list.find((s) => s.name === "load-big");
    if (big && big.nodeCount !== BIG_NODES) throw new Error(`the list shows ${big.nodeCount} nodes for the big spec`);
  }
  print(`${name}_specs`, count, "specs");
  print(`${name}_p95`, quantile(times, 0.95), "ms");
  print(`${name}_median`, quantile(times, 0.5), "ms");
}

/**
 * Probes /api/health every HEALTH_EVERY_MS, not waiting for the previous answer (a stall shows as the
 * latency of every probe it holds up), with at most HEALTH_IN_FLIGHT unanswered: a stalled server is not
 * also buried under probes.
 */
async function healthProbe(base) {
  // From a process of its own (bench/health-probe.mjs says why); resolves once it probes.
  const child = fork(path.join(import.meta.dirname, "health-probe.mjs"), [base, String(HEALTH_EVERY_MS), String(HEALTH_IN_FLIGHT), process.env.BENCH_LOAD_ACCEPT_ENCODING ?? ""]);
  await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("error", reject);
  });
  return () =>
    new Promise((resolve, reject) => {
      child.once("message", resolve);
      child.once("exit", (code) => code !== 0 && reject(new Error(`the health probe exited with ${code}`)));
      child.send("stop");
    });
}

/** `n` creates of map-reduce, at most `concurrency` in flight (each a connection of its own). */
async function createMany(base, n, concurrency = n) {
  const latencies = [];
  const ids = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const t = performance.now();
      const created = await rest(base, "POST", "/api/graphs/instances", { spec: "map-reduce" });
      latencies.push(performance.now() - t);
      ids.push(created.instanceId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
  return { ids, latencies };
}

async function waitUntilNoneRunning(base, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const running = await rest(base, "GET", "/api/graphs/instances?status=running&limit=1");
    if (running.length === 0) return;
    if (Date.now() > deadline) throw new Error("instances still running");
    await sleep(20);
  }
}

async function burstScenario({ base, cpuMs }) {
  await createMany(base, 20); // warm-up: the create route's code and the spec's compiled graph
  await waitUntilNoneRunning(base, 30_000);
  const creates = [];
  const health = [];
  const walls = [];
  const cpu = [];
  for (let b = 0; b < BURSTS; b++) {
    await sleep(300);
    const stop = await healthProbe(base);
    await sleep(50);
    const t0 = performance.now();
    const cpu0 = cpuMs();
    const { latencies } = await createMany(base, BURST);
    walls.push(performance.now() - t0);
    creates.push(...latencies);
    health.push(...(await stop()));
    await waitUntilNoneRunning(base, 30_000);
    cpu.push((cpuMs() - cpu0) / BURST);
    if (process.env.BENCH_LOAD_VERBOSE) console.error(`burst ${b + 1}: wall ${round(walls.at(-1))} ms, server cpu ${round(cpu.at(-1) * BURST)} ms, load ${loadavg()[0]}`);
  }
  print("burst_create_p95", quantile(creates, 0.95), "ms");
  print("burst_create_median", quantile(creates, 0.5), "ms");
  print("burst_create_max", Math.max(...creates), "ms");
  print("burst_wall_max", Math.max(...walls), "ms");
  print("burst_health_p99", quantile(health, 0.99), "ms");
  print("burst_health_max", Math.max(...health), "ms");
  print("burst_health_samples", health.length, "requests");
  // Server CPU per create (its run and the health probes meanwhile included): less sensitive than
  // latencies to what else the machine runs.
  print("burst_server_cpu_per_create", Math.min(...cpu), "ms");
}

async function manyScenario(base) {
  await sleep(500);
  const before = Date.now();
  const { ids } = await createMany(base, MANY, BURST);
  const created = Date.now();
  await waitUntilNoneRunning(base, 60_000);
  const failed = [...(await rest(base, "GET", "/api/graphs/instances?status=failed&limit=500")), ...(await rest(base, "GET", "/api/graphs/instances?status=crashed&limit=500"))];
  if (failed.length > 0) throw new Error(`${failed.length} instances did not complete`);
  // The newest completion is the first of the completed listing (newest first by update time).
  const [last] = await rest(base, "GET", "/api/graphs/instances?status=completed&limit=1");
  print("many_instances", ids.length, "instances");
  print("many_created_after", created - before, "ms");
  print("many_all_completed_after", last.updatedAt - before, "ms");
}

/** BENCH_LOAD_ONLY=burst,many runs only those scenarios (e.g. to profile one). */
const wanted = (name) => !process.env.BENCH_LOAD_ONLY || process.env.BENCH_LOAD_ONLY.split(",").includes(name);

async function main() {
  const giveUp = setTimeout(() => {
    console.error(`bench:load gave up after ${TIMEOUT_S} s`);
    process.exit(2);
  }, TIMEOUT_S * 1000);
  // The machine's 1-minute load average before and after: on these shared 2-core machines every latency
  // here scales with it (the figures are only comparable at a similar load).
  print("load_average_start", loadavg()[0], "load");
  const server = await startServer();
  try {
    if (wanted("specs")) await specScenarios(server.base);
    if (wanted("burst")) await burstScenario(server);
    if (wanted("many")) await manyScenario(server.base);
    // The list counts each spec's instances: again, now that there are 2,000 or so.
    if (wanted("specs") && wanted("many")) await listScenario(server.base, "spec_list_after_runs");
  } finally {
    await server.stop();
    clearTimeout(giveUp);
  }
  print("load_average_end", loadavg()[0], "load");
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
