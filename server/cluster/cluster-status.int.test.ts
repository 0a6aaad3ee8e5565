import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "@/bin/modexctl.mjs";
import { readHealth } from "@/server/api/routers/health";
import type { ClusterStatus } from "@/server/services/cluster-status";
import { currentExecutor } from "@/server/services/executor-identity";
import { PgClusterStatus } from "./pg-cluster-status";
import { ProcessHeartbeat } from "./process-heartbeat";
import { sweepOnce } from "./sweeper";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph } from "./testing/cluster-graphs";
import { bundleWorkerChild, spawnWorkerChild, type WorkerChild } from "./testing/child-processes";

/**
 * The cluster status on the real PostgreSQL with real worker processes: a web process (this test's
 * heartbeat) and two worker children, each listed with its pid and the leases it holds; a worker killed
 * with SIGKILL shows as expired with its leases expired and waiting for the sweeper, until a sweep
 * requeues them and the survivor takes them over.
 */

const LEASE_MS = 1000;
const INSTANCES = 4;

type Cluster = Extract<ClusterStatus, { mode: "cluster" }>;

describe("cluster status on PostgreSQL", () => {
  let outDir: string;
  let command: string[];
  beforeAll(async () => {
    mkdirSync(path.resolve(".tmp"), { recursive: true });
    outDir = mkdtempSync(path.resolve(".tmp", "cluster-status-"));
    command = await bundleWorkerChild(outDir);
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("lists the web process and the workers with their leases; a killed worker's leases show expired until swept", async () => {
    await using fx = await ClusterFixture.create({ graceMs: 60_000 });
    const web = currentExecutor();
    const heartbeat = await ProcessHeartbeat.start({ db: fx.pool, executor: web, role: "web", leaseMs: LEASE_MS });
    const status = new PgClusterStatus(fx.pool, web.id);
    const read = async () => (await status.read()) as Cluster;
    // The workers never sweep by themselves here: the test sweeps once it has seen the expired leases.
    const spawnOne = () => spawnWorkerChild(command, { url: fx.url, leaseMs: LEASE_MS, sweepMs: 600_000, concurrency: 8, quiet: true });
    const workers: WorkerChild[] = [spawnOne(), spawnOne()];
    try {
      const ids = await Promise.all(workers.map((w) => w.ready));
      const byId = (s: Cluster, id: string) => s.processes.find((p) => p.id === id)!;

      const idle = await read();
      expect(idle.mode).toBe("cluster");
      // The web process first, then the workers (in the order they started).
      expect(idle.processes[0]).toMatchObject({ role: "web", id: web.id, self: true, expired: false, pid: process.pid });
      expect(idle.processes.slice(1).map((p) => [p.role, p.self, p.expired])).toEqual([
        ["worker", false, false],
        ["worker", false, false],
      ]);
      expect(idle.processes.slice(1).map((p) => p.id).sort()).toEqual([...ids].sort());
      for (const [i, id] of ids.entries()) {
        expect(byId(idle, id)).toMatchObject({ host: web.host, pid: workers[i].process.pid, leases: 0, expiredLeases: 0 });
        expect(byId(idle, id).heartbeatAgeMs).toBeLessThan(LEASE_MS);
      }
      expect(idle.leases).toEqual({ held: 0, expired: 0, waiting: 0 });
      expect(idle.queue).toEqual({ queued: 0, due: 0, active: 0 });

      // Runs that hold their lease for 30 s (one node sleeping), spread over the two workers.
      await fx.control.createMany({ graph: chainGraph(1, 30_000), inputs: Array.from({ length: INSTANCES }, (_, i) => ({ instanceId: `s${i}`, input: i })) });
      await fx.until(async () => (await read()).leases.held === INSTANCES, 20_000, "every instance leased");
      const busy = await read();
      const owners = await fx.query<{ owner: string; n: number }>("SELECT owner, count(*)::int AS n FROM cluster_leases WHERE owner IS NOT NULL GROUP BY owner");
      const held = Object.fromEntries(owners.map((o) => [o.owner, o.n]));
      for (const id of ids) expect(byId(busy, id).leases).toBe(held[id] ?? 0);
      expect(ids.reduce((n, id) => n + byId(busy, id).leases, 0)).toBe(INSTANCES);
      expect(byId(busy, web.id).leases).toBe(0);
      expect(busy.queue.queued).toBe(0);

      // SIGKILL the worker holding the most: its heartbeat and its leases expire; nobody sweeps yet.
      const v = byId(busy, ids[0]).leases >= byId(busy, ids[1]).leases ? 0 : 1;
      const victim = ids[v];
      const survivor = ids[1 - v];
      const lost = byId(busy, victim).leases;
      workers[v].process.kill("SIGKILL");
      await workers[v].exited;
      await fx.until(async () => {
        const p = byId(await read(), victim);
        return p.expired && p.expiredLeases === lost;
      }, 10_000, "the killed worker and its leases expired");
      const dead = await read();
      expect(byId(dead, victim)).toMatchObject({ role: "worker", pid: workers[v].process.pid, expired: true, leases: 0, expiredLeases: lost });
      expect(byId(dead, victim).heartbeatAgeMs).toBeGreaterThanOrEqual(LEASE_MS);
      expect(byId(dead, survivor)).toMatchObject({ expired: false, leases: INSTANCES - lost, expiredLeases: 0 });
      expect(dead.leases).toEqual({ held: INSTANCES - lost, expired: lost, waiting: 0 });
      // Live processes first.
      expect(dead.processes.at(-1)!.id).toBe(victim);

      // The CLI prints the same status as a table.
      const cli = await modexctlCluster(dead);
      expect(cli).toMatch(/^ROLE\s+PROCESS\s+HOST:PID\s+HEARTBEAT\s+STATE\s+LEASES\s+EXPIRED LEASES$/m);
      expect(cli).toMatch(new RegExp(`^worker\\s+${victim}\\s+\\S+:${workers[v].process.pid}\\s+[\\d.]+ s ago\\s+EXPIRED\\s+0\\s+${lost}$`, "m"));
      expect(cli).toMatch(new RegExp(`^web\\s+${web.id} \\*`, "m"));
      expect(cli).toContain(`leases: ${INSTANCES - lost} held, ${lost} expired (waiting for the sweeper), 0 waiting for a worker`);

      // A sweep requeues them (recover jobs); the survivor takes every one over.
      expect(await sweepOnce({ db: fx.pool, dispatch: fx.dispatch, graceMs: 60_000 })).toHaveLength(lost);
      const swept = await read();
      expect(swept.leases.expired).toBe(0);
      expect(byId(swept, victim).expiredLeases).toBe(0);
      expect(swept.leases.held + swept.leases.waiting).toBe(INSTANCES);
      await fx.until(async () => byId(await read(), survivor).leases === INSTANCES, 20_000, "the survivor holds every lease");
    } finally {
      for (const w of workers) w.process.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      await heartbeat.stop({ leave: true });
    }
  }, 90_000);
});

/** `modexctl cluster` against a stand-in answering GET /api/cluster with `status`. */
async function modexctlCluster(status: ClusterStatus): Promise<string> {
  const server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(req.url === "/api/health" ? readHealth() : status));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const out: string[] = [];
    const err: string[] = [];
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const code = await main(["cluster", "--url", url], { out: (x) => out.push(x), err: (x) => err.push(x) }, { MODEX_TOKEN: "t" });
    expect(code, err.join("\n")).toBe(0);
    return out.join("\n");
  } finally {
    server.close();
  }
}
