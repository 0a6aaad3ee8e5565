/**
 * Trigger figures (prints `name value unit` lines; `npm run bench:triggers`):
 *
 * 1. 10,000 pending schedule timers on a real SQLite file, armed by the app's Scheduler: the heap they
 *    cost, and how late each fire calls its start (fires spread over the next 30 s, at whole seconds as
 *    cron fires are), p50/p95/max. The start is a stand-in that notes the time: this measures the timers,
 *    not the runs.
 * 2. A webhook-started run against a REST create, in process on a real SQLite file: the same spec through
 *    `POST /api/graphs/instances` and through `POST /api/hooks/{name}` (HMAC-signed), interleaved; the
 *    difference of the medians is what the hook adds (lookup, rate limit, signature, body).
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openGraphDatabase } from "@/server/db/graph-database";
import { createAppServices } from "@/server/services/app-services";
import { installAppServices } from "@/server/services/app-services-singleton";
import { AuthService } from "@/server/services/auth-service";
import { SqliteScheduleStore, type ScheduleRecord } from "@/server/services/triggers/schedule-store";
import { Scheduler } from "@/server/services/triggers/scheduler";
import * as instancesRoute from "@/app/api/graphs/instances/route";
import * as hookRoute from "@/app/api/hooks/[name]/route";
import { report } from "./measure";

const TIMERS = 10_000;
const SPREAD_S = 30;
const TOKEN = "bench-token-0123456789abcdefghijklmnopq";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heapMiB = () => (gc(), gc(), process.memoryUsage().heapUsed / 1024 / 1024);
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function pendingTimers(dir: string): Promise<void> {
  const db = openGraphDatabase(path.join(dir, "timers.db"));
  const store = new SqliteScheduleStore(db);
  const now = Date.now();
  const first = Math.ceil((now + 3_000) / 1000) * 1000;
  // Rows first (they live in SQLite, not in the heap), then the scheduler that arms them.
  for (let i = 0; i < TIMERS; i++) {
    const at = new Date(first + (i % SPREAD_S) * 1000);
    const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
    const row: ScheduleRecord = {
      name: `s${i}`, spec: "bench", cron, timezone: "UTC", input: null, overlap: "allow", missed: "skip", paused: false, declaredIn: null,
      nextFireAt: at.getTime(), lastFireAt: null, lastOutcome: null, lastInstanceId: null, createdAt: now, updatedAt: now,
    };
    store.put(row);
  }
  const late: number[] = [];
  let n = 0;
  const before = heapMiB();
  const scheduler = new Scheduler({
    store,
    start: async (_s, fireAt) => {
      late.push(Date.now() - fireAt);
      return { instanceId: String(++n) };
    },
    statusOf: async () => null,
    stop: async () => undefined,
  });
  await scheduler.start();
  const armed = heapMiB();
  report("trigger_timers_pending", scheduler.pending, "timers");
  report("trigger_timers_heap_10k", armed - before, "MiB");
  while (late.length < TIMERS && Date.now() < first + SPREAD_S * 1000 + 10_000) await new Promise((r) => setTimeout(r, 200));
  await scheduler.idle();
  scheduler.stop();
  late.sort((a, b) => a - b);
  report("trigger_timers_fired", late.length, "timers");
  report("trigger_fire_lateness_p50", quantile(late, 0.5), "ms");
  report("trigger_fire_lateness_p95", quantile(late, 0.95), "ms");
  report("trigger_fire_lateness_max", late[late.length - 1], "ms");
  db.close();
}

async function hookOverhead(dir: string): Promise<void> {
  const db = openGraphDatabase(path.join(dir, "app.db"));
  const services = createAppServices({ db, auth: new AuthService(TOKEN), heartbeatMs: 0 });
  installAppServices(services);
  services.specs.save(`name: bench-hook
nodes:
  - { name: echo, node_type: function, config: { op: template, template: "got {{input}}" } }
edges:
  - { from: __start__, to: echo }
  - { from: echo, to: __end__ }
`);
  const { secret } = await services.triggers.hooks.create({ name: "bench", spec: "bench-hook", ratePerMinute: 100_000 });
  const base = "http://127.0.0.1:3000";
  const rest = async () => {
    const body = JSON.stringify({ spec: "bench-hook", input: { n: 1 } });
    const res = await instancesRoute.POST(new Request(`${base}/api/graphs/instances`, { method: "POST", body, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" } }));
    if (res.status !== 201) throw new Error(`REST create: ${res.status} ${await res.text()}`);
  };
  const hook = async () => {
    const body = JSON.stringify({ n: 1 });
    const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    const res = await hookRoute.POST(new Request(`${base}/api/hooks/bench`, { method: "POST", body, headers: { "x-modex-signature": signature, "content-type": "application/json" } }), {
      params: Promise.resolve({ name: "bench" }),
    });
    if (res.status !== 202) throw new Error(`hook: ${res.status} ${await res.text()}`);
  };
  const times = { rest: [] as number[], hook: [] as number[] };
  for (let i = 0; i < 600; i++) {
    const [kind, run] = i % 2 === 0 ? (["rest", rest] as const) : (["hook", hook] as const);
    const t0 = performance.now();
    await run();
    if (i >= 100) times[kind].push(performance.now() - t0); // the first 100 warm up
  }
  await services.orchestrator.drainAll();
  const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
  report("rest_create_median", median(times.rest), "ms");
  report("webhook_create_median", median(times.hook), "ms");
  report("webhook_over_rest_create", median(times.hook) - median(times.rest), "ms");
  services.triggers.end();
  db.close();
}

const dir = mkdtempSync(path.join(tmpdir(), "modex-trigger-bench-"));
try {
  await pendingTimers(dir);
  await hookOverhead(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
