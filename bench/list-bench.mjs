// `npm run bench:list`: the Instances list with 100,000 instances, over real HTTP on loopback against the
// production server (not a timed test). Starts the production server (bench/production-server.mjs:
// built only when no build exists) with MODEX_RECOVERY=off (the seeded crashed runs stay as they are),
// seeds BENCH_LIST_INSTANCES (default 100,000) latest versions with their inputs straight into its SQLite
// file (as a second connection: the app's migrations, indexes and search trigger apply), then times each
// filter of GET /api/graphs/instances (one page of 50 plus its totals) and the UI's tRPC instances.page.
// Prints `name value unit` lines; the target is p95 ≤ 100 ms per filter.
import path from "node:path";
import Database from "better-sqlite3";
import { startProductionServer } from "./production-server.mjs";

const TOKEN = "bench-list-token-0123456789abcdefghij";
const N = Number(process.env.BENCH_LIST_INSTANCES ?? 100_000);
const RUNS = Number(process.env.BENCH_LIST_RUNS ?? 30);
const GRAPHS = 20;

const print = (name, value, unit) => console.log(`${name} ${typeof value === "number" ? (value >= 100 ? Math.round(value) : Math.round(value * 10) / 10) : value} ${unit}`);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
/**
 * Latest versions of N instances over GRAPHS graph names, one started every second up to now (the
 * last hour holds 3,600): 70% completed, 10% failed, 5% stopped, 10% paused (half of them waiting for
 * an answer), 5% crashed. None running: the server would take them for orphans of another process.
 */
function seed(dataDir) {
  const db = new Database(path.join(dataDir, "modex.db"));
  db.pragma("busy_timeout = 10000");
  const ins = db.prepare(`INSERT INTO graph_instances (instance_id, version, is_latest, status, graph_name, spec_id, node_id_map, attrs, state, created_at, updated_at)
    VALUES (?, 1, 1, ?, ?, NULL, '{}', ?, NULL, ?, ?)`);
  const io = db.prepare(`INSERT INTO graph_io_records (instance_id, version, input, output) VALUES (?, 1, ?, NULL)`);
  const t0 = Date.now() - N * 1000;
  const started = performance.now();
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const id = String(386000000000000000n + BigInt(i) * 4096n);
      const r = i % 100;
      const status = r < 70 ? "completed" : r < 80 ? "failed" : r < 85 ? "stopped" : r < 95 ? "paused" : "crashed";
      const attrs = status === "paused" && r % 2 === 0 ? JSON.stringify({ waiting_for: { kind: "human_input", prompt: "Ship it?" } }) : "{}";
      ins.run(id, status, `graph-${i % GRAPHS}`, attrs, t0 + i * 1000, t0 + i * 1000 + 700);
      io.run(id, JSON.stringify({ content: `order ${i} for customer ${i % 997}` }));
    }
  })();
  db.exec("ANALYZE");
  db.close();
  return { seedMs: performance.now() - started, t0, sampleId: String(386000000000000000n + BigInt(N - 1234) * 4096n) };
}

async function time(name, url) {
  const headers = { authorization: `Bearer ${TOKEN}` };
  let total = null;
  for (let i = 0; i < 3; i++) await (await fetch(url, { headers })).text();
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.text();
    ms.push(performance.now() - t);
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status} ${body.slice(0, 200)}`);
    total = res.headers.get("x-total-count") ?? total;
  }
  print(`list_${name}_p50`, quantile(ms, 0.5), "ms");
  print(`list_${name}_p95`, quantile(ms, 0.95), "ms");
  if (total !== null) print(`list_${name}_total`, Number(total), "rows");
  return ms;
}

async function main() {
  const server = await startProductionServer({ name: "list", token: TOKEN, env: { MODEX_RECOVERY: "off" } });
  try {
    const { seedMs, sampleId } = seed(server.dataDir);
    print("list_seed_instances", N, "instances");
    print("list_seed_time", seedMs / 1000, "s");
    const api = `${server.base}/api/graphs/instances`;
    const hourAgo = Date.now() - 3_600_000;
    const scenarios = {
      all: `${api}?limit=50`,
      status_failed: `${api}?status=failed&limit=50`,
      waiting: `${api}?waiting=true&limit=50`,
      graph: `${api}?graph=graph-7&limit=50`,
      graph_status: `${api}?graph=graph-7&status=completed&limit=50`,
      text_input: `${api}?q=${encodeURIComponent("customer 421\"")}&limit=50`,
      text_id: `${api}?q=${sampleId.slice(-9)}&limit=50`,
      last_hour: `${api}?from=${hourAgo}&limit=50`,
      archived_only: `${api}?archived=only&limit=50`,
    };
    const p95 = {};
    for (const [name, url] of Object.entries(scenarios)) p95[name] = quantile(await time(name, url), 0.95);
    // A deep page: the cursor after four pages.
    let cursor = null;
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${api}?status=completed&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      await res.text();
      cursor = res.headers.get("x-next-cursor");
    }
    p95.page_5 = quantile(await time("page_5", `${api}?status=completed&limit=50&cursor=${encodeURIComponent(cursor)}`), 0.95);
    // The UI's own call (tRPC, the waiting tab).
    const input = encodeURIComponent(JSON.stringify({ waiting: true, archived: "exclude", limit: 50 }));
    p95.trpc_page = quantile(await time("trpc_page", `${server.base}/api/trpc/instances.page?input=${input}`), 0.95);
    const worst = Object.entries(p95).sort((a, b) => b[1] - a[1])[0];
    print("list_worst_p95", worst[1], `ms (${worst[0]}; target ≤ 100)`);
  } finally {
    await server.stop();
  }
}

await main();
