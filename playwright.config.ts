import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// This file is evaluated by the runner and again by each worker. The port and the data directory are
// chosen once, in the runner, and reach the workers through the environment they inherit.
process.env.MODEX_E2E_PORT ??= execFileSync(process.execPath, [
  "-e",
  `const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });`,
])
  .toString()
  .trim();
// The stand-in model server (e2e/support/fake-llm-server.mjs) gets a port of its own the same way.
process.env.MODEX_E2E_LLM_PORT ??= execFileSync(process.execPath, [
  "-e",
  `const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });`,
])
  .toString()
  .trim();
if (!process.env.MODEX_E2E_DATA_DIR) {
  process.env.MODEX_E2E_DATA_DIR = mkdtempSync(
    path.join(tmpdir(), "modex-e2e-"),
  );
  process.env.MODEX_E2E_DATA_DIR_CREATED = "1"; // ours to remove in e2e/global-teardown.ts
}

const port = Number(process.env.MODEX_E2E_PORT);
// Tests that start their own servers (restarts, kill -9, clusters, PostgreSQL) share nothing with the
// others but the stand-in model: they run in a second worker beside the tests of the shared server, which
// keep one worker (they read lists that the others add to). A spec all of whose tests do is listed here;
// a test among others says so with the tag @own-server.
const OWN_SERVERS = [
  /(chat-durable|chat-resume|cluster-chat|cluster-queued|cluster|durability|extension-errors|extensions-cluster|node-resume|postgres-all|runaway-guards)\.spec\.ts /,
  /@own-server/,
];
const chromium = {
  browserName: "chromium" as const,
  viewport: { width: 1280, height: 800 },
  // Debian's Chromium, never a downloaded one (`npx playwright install` cannot reach its host).
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  },
};
const llmPort = Number(process.env.MODEX_E2E_LLM_PORT);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "./e2e",
  outputDir: ".tmp/test-results",
  globalTeardown: "./e2e/global-teardown.ts",
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [
    ["list"],
    ["json", { outputFile: ".tmp/reports/playwright.json" }],
  ],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  workers: 2,
  projects: [
    { name: "chromium", grepInvert: OWN_SERVERS, workers: 1, use: chromium },
    { name: "processes", grep: OWN_SERVERS, workers: 1, use: chromium },
  ],
  webServer: [
    {
      command: "node e2e/support/fake-llm-server.mjs",
      url: `http://127.0.0.1:${llmPort}/health`,
      reuseExistingServer: false,
      env: { FAKE_LLM_PORT: String(llmPort) },
    },
    // The production build, on a fresh database each run, with the stand-in model for agents and chat.
    {
      command: `npm run build && npm run start -- -p ${port}`,
      url: `${baseURL}/api/health`,
      timeout: 300_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        PORT: String(port),
        MODEX_DATA_DIR: process.env.MODEX_E2E_DATA_DIR,
        NEXT_TELEMETRY_DISABLED: "1",
        MODEX_LLM_BASE_URL: `http://127.0.0.1:${llmPort}/v1`,
        MODEX_LLM_MODEL: "fake-echo",
        // Prices for the stand-in model, so costs show (e2e/agent-usage.spec.ts).
        MODEX_MODEL_PRICES: "e2e/support/model-prices.yml",
      },
    },
  ],
});
