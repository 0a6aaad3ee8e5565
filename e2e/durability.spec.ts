import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { ModexServer, removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";

/**
 * Durability of the real production server, as processes: one server per data directory, kill -9 with an
 * immediate restart, a database that runs out of space, a data directory that cannot be used. Each test
 * runs its own `next start` processes on the build Playwright made.
 */

test.describe.configure({ mode: "serial" });

// A pipeline slow enough for kills to land inside it: two timed waits between effect-like steps.
const SLOW_SPEC = `
name: slow-steps
nodes:
  - { name: tag, node_type: function, config: { op: template, template: "item {{input}}" } }
  - { name: wait_a, node_type: delay, config: { ms: 120 } }
  - { name: shout, node_type: function, config: { op: map, fn: upper } }
  - { name: wait_b, node_type: delay, config: { ms: 120 } }
  - { name: publish, node_type: function, config: { op: template, template: "published {{input}}" } }
edges:
  - { from: __start__, to: tag }
  - { from: tag, to: wait_a }
  - { from: wait_a, to: shout }
  - { from: shout, to: wait_b }
  - { from: wait_b, to: publish }
  - { from: publish, to: __end__ }
`;

function specsDir(): string {
  const dir = tempDir("modex-specs-");
  writeFileSync(path.join(dir, "slow-steps.yml"), SLOW_SPEC);
  return dir;
}

interface View {
  summary: { status: string; result: { content: unknown }[] | null };
  invocations: { node: string; status: string }[];
}

test("a second server on the same data directory refuses to start, naming the directory and the holder", async () => {
  test.setTimeout(240_000);
  for (let round = 0; round < 4; round++) {
    const dataDir = tempDir("modex-lock-");
    const [a, b] = await Promise.all([ModexServer.start({ dataDir }), ModexServer.start({ dataDir })]);
    try {
      const outcomes = await Promise.all([a.outcome(), b.outcome()]);
      expect(outcomes.filter((o) => o === "running"), `round ${round}: ${a.output}\n---\n${b.output}`).toHaveLength(1);
      const loser = outcomes[0] === "running" ? b : a;
      const winner = outcomes[0] === "running" ? a : b;
      expect(await loser.exited).toBe(1);
      expect(loser.output).toContain(`another Modex server holds the data directory ${dataDir}`);
      expect(loser.output).toMatch(new RegExp(`process ${winner.process.pid}|still starting`));
      expect((await winner.fetch("/api/health")).status).toBe(200);
    } finally {
      await Promise.all([a.killHard(), b.killHard()]);
      removeDir(dataDir);
    }
  }
});

test("kill -9 and an immediate restart, 20 times at random moments: every run completes exactly once", async () => {
  test.setTimeout(420_000);
  const dataDir = tempDir("modex-kill-");
  const specs = specsDir();
  const env = { MODEX_SPECS_DIR: specs };
  const ids: string[] = [];
  let server = await ModexServer.start({ dataDir, env });
  try {
    for (let round = 0; round < 20; round++) {
      await server.ready();
      const created = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          server.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "slow-steps", input: `r${round}i${i}` }) }),
        ),
      );
      ids.push(...created.map((c) => c.instanceId));
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 300));
      await server.killHard();
      server = await ModexServer.start({ dataDir, env }); // at once: no waiting for anything to expire
    }
    await server.ready();
    // Recovery runs at start-up; every acknowledged instance ends completed.
    await expect
      .poll(async () => (await Promise.all(ids.map((id) => server.json<View>(`/api/graphs/instances/${id}`)))).filter((v) => v.summary.status !== "completed").length, {
        timeout: 60_000,
      })
      .toBe(0);
    for (const id of ids) {
      const view = await server.json<View>(`/api/graphs/instances/${id}`);
      expect(view.summary.result, id).toHaveLength(1);
      expect(String(view.summary.result![0].content)).toMatch(/^published ITEM R\d+I\d$/);
      for (const node of ["tag", "shout", "publish"]) {
        expect(view.invocations.filter((i) => i.node === node && i.status === "COMPLETED"), `${id} ${node}`).toHaveLength(1);
      }
      const events = await server.json<{ event: { type: string; reachedEnd?: boolean } }[]>(`/api/graphs/instances/${id}/events?limit=1000`);
      expect(events.filter((e) => e.event.type === "run_finished").length, id).toBeLessThanOrEqual(1);
    }
  } finally {
    await server.killHard();
    removeDir(dataDir);
    removeDir(specs);
  }
});

test("a full database: every 201 exists and completes, refusals are 507 naming the database, reads keep working", async () => {
  test.setTimeout(180_000);
  const dataDir = tempDir("modex-full-");
  // Room for the schema and the examples, and little more (the quota is SQLite's max_page_count).
  let server = await (await ModexServer.start({ dataDir, env: { MODEX_DB_MAX_MB: "1.1" } })).ready();
  try {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        server.fetch("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "map-reduce", input: ["word", "y".repeat(2_000 + i * 400)] }) }),
      ),
    );
    const created: string[] = [];
    let refused = 0;
    for (const res of answers) {
      const body = (await res.json()) as { instanceId?: string; error?: { code: string; message: string } };
      if (res.status === 201) created.push(body.instanceId!);
      else {
        expect(res.status, JSON.stringify(body)).toBe(507);
        expect(body.error?.code).toBe("STORAGE_FULL");
        expect(body.error?.message).toContain(path.join(dataDir, "modex.db"));
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(created.length).toBeGreaterThan(0);
    expect((await server.fetch("/api/health")).status).toBe(200);
    expect((await server.fetch("/api/graphs/instances?limit=500")).status).toBe(200);
    for (const id of created) expect((await server.fetch(`/api/graphs/instances/${id}`)).status, id).toBe(200);

    // Space returns (a larger quota, as after freeing disk): the acknowledged runs all complete, once.
    await server.stop();
    server = await (await ModexServer.start({ dataDir, env: { MODEX_DB_MAX_MB: "64" } })).ready();
    await expect
      .poll(async () => (await Promise.all(created.map((id) => server.json<View>(`/api/graphs/instances/${id}`)))).filter((v) => v.summary.status !== "completed").length, {
        timeout: 30_000,
      })
      .toBe(0);
    for (const id of created) expect((await server.json<View>(`/api/graphs/instances/${id}`)).summary.result, id).toHaveLength(1);
  } finally {
    await server.killHard();
    removeDir(dataDir);
  }
});

test("a data directory that cannot be used stops start-up with its path and the cause", async () => {
  const parent = tempDir("modex-baddir-");
  try {
    const notADir = path.join(parent, "file");
    writeFileSync(notADir, "not a directory");
    const server = await ModexServer.start({ dataDir: path.join(notADir, "data") });
    expect(await server.outcome()).toBe(1);
    expect(server.output).toContain(`cannot use the data directory ${path.join(notADir, "data")}`);
    expect(server.output).not.toContain("Modex is running");

    // A database file that cannot be opened (a folder in its place): the path and the cause.
    const dataDir = path.join(parent, "data");
    mkdirSync(path.join(dataDir, "modex.db"), { recursive: true });
    const second = await ModexServer.start({ dataDir });
    expect(await second.outcome()).toBe(1);
    expect(second.output).toContain(`cannot open the database ${path.join(dataDir, "modex.db")}`);
  } finally {
    removeDir(parent);
  }
});

test("a data directory that cannot be made (under /proc) or is a file stops start-up at once, naming MODEX_DATA_DIR", async () => {
  const parent = tempDir("modex-baddir-");
  const file = path.join(parent, "file");
  writeFileSync(file, "not a directory");
  const servers: ModexServer[] = [];
  try {
    for (const [dataDir, cause] of [
      ["/proc/modex-e2e-data", "ENOENT"],
      [file, "it is a file, not a directory"],
    ]) {
      const server = await ModexServer.start({ dataDir });
      servers.push(server);
      // Node's recursive mkdir looped forever under /proc: the server listened, never started, and ignored SIGTERM.
      expect(await server.outcome(30_000), server.output).toBe(1);
      expect(server.output).toContain(`cannot use the data directory ${dataDir} (MODEX_DATA_DIR): ${cause}`);
    }
  } finally {
    await Promise.all(servers.map((s) => s.killHard()));
    removeDir(parent);
  }
});

test("with MODEX_RECOVERY=off a crashed run waits; its Recover button re-runs it to completion", async ({ page }) => {
  test.setTimeout(120_000);
  const dataDir = tempDir("modex-recover-");
  const specs = specsDir();
  const env = { MODEX_SPECS_DIR: specs, MODEX_RECOVERY: "off" };
  let server = await (await ModexServer.start({ dataDir, env })).ready();
  try {
    const { instanceId } = await server.json<{ instanceId: string }>("/api/graphs/instances", {
      method: "POST",
      body: JSON.stringify({ spec: "slow-steps", input: "by hand" }),
    });
    await new Promise((r) => setTimeout(r, 60)); // inside its first wait
    await server.killHard();
    server = await (await ModexServer.start({ dataDir, env })).ready();
    expect((await server.json<View>(`/api/graphs/instances/${instanceId}`)).summary.status).toBe("crashed");

    await page.request.post(`${server.url}/api/auth/login`, { data: { token: SERVER_TOKEN } });
    await page.goto(`${server.url}/instances/${instanceId}`);
    const pause = page.getByRole("button", { name: "Pause", exact: true });
    await expect(pause).toBeDisabled();
    await expect(pause).toHaveAttribute("title", /Recover re-runs it from its last commit/);
    await page.screenshot({ path: "e2e/screenshots/instance-crashed-recover.png" });
    await page.getByRole("button", { name: "Recover", exact: true }).click();
    await expect.poll(async () => (await server.json<View>(`/api/graphs/instances/${instanceId}`)).summary.status, { timeout: 15_000 }).toBe("completed");
    // The page follows the recovered run live: its version switcher ends on completed.
    await expect(page.getByRole("combobox", { name: "Version" })).toContainText("completed", { timeout: 15_000 });
    const view = await server.json<View>(`/api/graphs/instances/${instanceId}`);
    expect(view.summary.result?.map((r) => r.content)).toEqual(["published ITEM BY HAND"]);
  } finally {
    await server.killHard();
    removeDir(dataDir);
    removeDir(specs);
  }
});
