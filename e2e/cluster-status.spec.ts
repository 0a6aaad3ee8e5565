import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { PgTestDatabase } from "../server/db/pg/testing/pg-test-database";
import { removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";
import { accessToken, signIn } from "./support/session";
import { WebProcesses } from "./support/web-processes";
import { WorkerProcess } from "./support/worker-process";

/**
 * The Cluster page: on SQLite (the default e2e server) it says one process runs everything and how to
 * scale out; on PostgreSQL it lists the web process and a worker with the leases it holds, and shows the
 * worker expired, its leases waiting for the sweeper, once it is killed.
 */

const SCREENSHOTS = path.resolve(import.meta.dirname, "../.tmp/screenshots");

test("on SQLite the Cluster page, reached from the navigation, says it is a single process and how to scale out", async ({ page }) => {
  const unauthorized = await page.request.get("/api/cluster");
  expect(unauthorized.status()).toBe(401);
  const rest = await (await page.request.get("/api/cluster", { headers: { authorization: `Bearer ${accessToken()}` } })).json();
  expect(rest).toMatchObject({ mode: "single", process: { running: expect.any(Number) } });

  await signIn(page);
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Cluster" }).click();
  await expect(page).toHaveURL(/\/cluster$/);
  await expect(page.getByRole("heading", { name: "Cluster", exact: true })).toBeVisible();
  const single = page.getByTestId("cluster-single");
  await expect(single).toContainText("One process runs everything (SQLite).");
  await expect(single).toContainText(`${rest.process.host}:${rest.process.pid}`);
  await expect(single).toContainText("MODEX_ROLE=web");
  await expect(single).toContainText("npm run worker");
  await page.screenshot({ path: path.join(SCREENSHOTS, "cluster-single.png"), fullPage: true });
});

test("the Cluster page shows an error when it cannot read the status, and Try again reads it", async ({ page }) => {
  test.setTimeout(60_000);
  await signIn(page);
  const status = /\/api\/trpc\/[^?]*cluster\.status/;
  await page.route(status, (route) => route.abort());
  await page.goto("/cluster");
  // After the query's retries (about 7 s).
  const error = page.getByTestId("error-state");
  await expect(error).toContainText("Could not read the cluster", { timeout: 20_000 });
  await page.unroute(status);
  await error.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByTestId("cluster-single")).toContainText("One process runs everything (SQLite).");
});

const SLOW = `name: status-slow
nodes:
  - { name: wait, node_type: delay, config: { ms: 60000 } }
edges:
  - { from: __start__, to: wait }
  - { from: wait, to: __end__ }
`;

test("on PostgreSQL the Cluster page lists the web process and a worker with its leases, then the killed worker expired", { tag: "@own-server" }, async ({ page }) => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  const specsDir = tempDir("modex-cluster-status-graphs-");
  writeFileSync(path.join(specsDir, "status-slow.yml"), SLOW);
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env: { MODEX_SPECS_DIR: specsDir } });
  const worker = WorkerProcess.start(database.url, "e2e-status-w1");
  try {
    const [web] = await webs.ready();
    await worker.ready();
    for (let i = 0; i < 2; i++) await web.json("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "status-slow", input: i }) });

    await page.goto(`${web.url}/api/auth/login?token=${SERVER_TOKEN}&next=/cluster`);
    const row = page.locator('[data-testid="cluster-process"][data-id="e2e-status-w1"]');
    await expect(row).toHaveAttribute("data-role", "worker", { timeout: 30_000 });
    await expect(row.getByTestId("cluster-process-leases")).toHaveText("2", { timeout: 30_000 });
    await expect(row.getByTestId("cluster-process-state")).toHaveText("live");
    await expect(row).toContainText(`:${worker.process.pid}`);
    const webRow = page.locator('[data-testid="cluster-process"][data-role="web"]');
    await expect(webRow).toContainText("(this page's server)");
    await expect(page.getByTestId("cluster-leases-held")).toHaveText("2");
    await page.screenshot({ path: path.join(SCREENSHOTS, "cluster-live.png"), fullPage: true });

    // Killed: no worker is left to sweep, so its leases stay expired, waiting for the sweeper.
    await worker.kill();
    await expect(row).toHaveAttribute("data-expired", "true", { timeout: 30_000 });
    await expect(row.getByTestId("cluster-process-expired-leases")).toHaveText("2", { timeout: 30_000 });
    await expect(page.getByTestId("cluster-leases-expired")).toHaveText("2");
    await expect(page.getByTestId("cluster-leases-held")).toHaveText("0");
    await page.screenshot({ path: path.join(SCREENSHOTS, "cluster-expired.png"), fullPage: true });

    const rest = await web.json<{ mode: string; processes: { id: string; expired: boolean; expiredLeases: number }[] }>("/api/cluster");
    expect(rest.mode).toBe("cluster");
    expect(rest.processes.find((p) => p.id === "e2e-status-w1")).toMatchObject({ expired: true, expiredLeases: 2 });
  } finally {
    await worker.kill();
    removeDir(specsDir);
  }
});
