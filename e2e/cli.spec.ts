import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, "../bin/modexctl.mjs");

/**
 * modexctl against the production server Playwright started. The CLI finds the token on its own, in
 * the server's data directory (MODEX_DATA_DIR), as it does on the machine that runs Modex.
 */
async function modexctl(baseURL: string, ...args: string[]) {
  const env = { ...process.env, MODEX_URL: baseURL, MODEX_DATA_DIR: process.env.MODEX_E2E_DATA_DIR, MODEX_TOKEN: "" };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

test("modexctl runs an example graph, answers its human input and reports its status", async ({ baseURL }) => {
  const specs = await modexctl(baseURL!, "specs");
  expect(specs.code, specs.stderr).toBe(0);
  expect(specs.stdout).toContain("approval-gate");

  const started = await modexctl(baseURL!, "run", "approval-gate", "--input", "release 12", "--json");
  expect(started.code, started.stderr).toBe(0);
  const { instanceId } = JSON.parse(started.stdout) as { instanceId: string };

  await expect
    .poll(async () => JSON.parse((await modexctl(baseURL!, "status", instanceId, "--json")).stdout).summary.status, { timeout: 15_000 })
    .toBe("paused");
  const waiting = await modexctl(baseURL!, "status", instanceId);
  expect(waiting.stdout).toMatch(/waiting for input at approve: Approve this deploy\?/);

  const answered = await modexctl(baseURL!, "answer", instanceId, "yes");
  expect(answered.code, answered.stderr).toBe(0);
  const events = await modexctl(baseURL!, "events", instanceId, "--follow", "--interval", "100");
  expect(events.stdout).toMatch(/running → completed/);

  const done = await modexctl(baseURL!, "status", instanceId);
  expect(done.stdout).toMatch(/status\s+completed/);
  expect(done.stdout).toMatch(/result\s+published \(answer: yes\)/);

  const listed = await modexctl(baseURL!, "ls", "--status", "completed");
  expect(listed.stdout).toContain(instanceId);
});

test("modexctl run --wait completes a fan-out graph; errors have distinct exit codes", async ({ baseURL }) => {
  const res = await modexctl(baseURL!, "run", "map-reduce", "--input", '["durable","graphs"]', "--wait");
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/status\s+completed/);
  expect(res.stdout).toMatch(/result\s+13/);

  expect((await modexctl(baseURL!, "status", "1")).code).toBe(2);
  expect((await modexctl(baseURL!, "specs", "--token", "wrong-token")).code).toBe(3);
  expect((await modexctl(baseURL!, "frobnicate")).code).toBe(1);
});

test("without credentials the REST API answers 401 and a page leads to the login page", async ({ playwright, browser, baseURL }) => {
  const anonymous = await playwright.request.newContext({ baseURL });
  expect((await anonymous.get("/api/graphs/specs")).status()).toBe(401);
  expect((await anonymous.post("/api/graphs/instances", { data: { spec: "map-reduce" } })).status()).toBe(401);
  expect((await anonymous.get("/api/health")).status()).toBe(200);
  await anonymous.dispose();

  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto("/instances");
  await expect(page).toHaveURL(/\/login\?next=%2Finstances/);
  await context.close();
});
