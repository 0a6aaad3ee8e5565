import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { PgTestDatabase } from "../server/db/pg/testing/pg-test-database";
import { removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";
import { WebProcesses } from "./support/web-processes";
import { WorkerProcess as Worker } from "./support/worker-process";

const ROOT = path.resolve(import.meta.dirname, "..");
const FAKE_LLM = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo" };

interface Report {
  extensions: { name: string; calls: number; counters?: Record<string, number> }[];
}

test("on a cluster, the web process's Extensions page counts the model calls of agent nodes a worker process ran, and keeps them after the worker stops", async ({ page }) => {
  test.setTimeout(180_000);
  const extensionsDir = tempDir("modex-cluster-extensions-");
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(path.join(extensionsDir, "extensions.yml"), "builtins: {}\n");
  // Counts the model calls it sees in its own counter too: both are summed over the processes.
  writeFileSync(
    path.join(extensionsDir, "call-counter.mjs"),
    `let calls = 0;\nexport default { name: "call_counter", onBeforeLlmCall() { calls += 1; }, counters: () => ({ calls }), resetCounters() { calls = 0; } };\n`,
  );
  const env = { ...FAKE_LLM, MODEX_SPECS_DIR: path.join(ROOT, "config/graphs"), MODEX_EXTENSIONS_DIR: extensionsDir };
  await using database = await PgTestDatabase.create();
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env });
  const worker = Worker.start(database.url, "e2e-ext-w1", env);
  try {
    const [web] = await webs.ready();
    await worker.ready();
    const { instanceId } = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "review-cycle", input: "write add(a, b)" }) });
    await expect.poll(async () => (await web.json<{ summary: { status: string } }>(`/api/graphs/instances/${instanceId}`)).summary.status, { timeout: 60_000 }).toBe("completed");
    // The web process ran nothing: every call was the worker's, saved within a second.
    const counted = () => web.json<Report>("/api/extensions").then((r) => r.extensions.find((e) => e.name === "call_counter"));
    await expect.poll(async () => (await counted())?.calls ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);

    // The run's last calls may still wait for the worker's next save (once a second); its stop saves them.
    await worker.stop();
    const stats = (await counted())!;
    expect(stats.calls).toBeGreaterThanOrEqual(3);
    expect(stats.counters).toEqual({ calls: stats.calls });
    await page.goto(`${web.url}/api/auth/login?token=${SERVER_TOKEN}&next=/extensions`);
    const row = page.locator('[data-testid="extension-row"][data-name="call_counter"]');
    await expect(row.getByTestId("extension-calls")).toHaveText(String(stats.calls));
    await page.screenshot({ path: "e2e/screenshots/extensions-cluster.png" });
  } finally {
    await worker.stop();
    removeDir(extensionsDir);
  }
});
