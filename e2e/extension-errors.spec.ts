import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { ModexServer, removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, "../bin/modexctl.mjs");

/** A data directory whose extensions folder holds `quota_check`, whose every model call hook throws. */
function withThrowingExtension(prefix: string): { dataDir: string; extensionsDir: string } {
  const dataDir = tempDir(prefix);
  const extensionsDir = path.join(dataDir, "extensions");
  mkdirSync(extensionsDir);
  writeFileSync(path.join(extensionsDir, "extensions.yml"), "builtins: {}\n");
  writeFileSync(
    path.join(extensionsDir, "quota-check.mjs"),
    `export default { name: "quota_check", onBeforeLlmCall() { throw new Error("quota service unreachable"); } };\n`,
  );
  return { dataDir, extensionsDir };
}

// A server of its own: its extensions folder holds a module that throws, which the shared server's must not.
test.describe.configure({ timeout: 120_000 });

test("an extension that throws: the turn still answers; the Extensions page and modexctl say where it failed and what it threw; Reset statistics zeroes them", async ({ page }) => {
  const { dataDir, extensionsDir } = withThrowingExtension("modex-broken-extension-");
  const server = await (await ModexServer.start({ dataDir, env: { MODEX_LLM_MODEL: "modex-demo", MODEX_EXTENSIONS_DIR: extensionsDir } })).ready();
  try {
    const { sessionId } = await server.json<{ sessionId: string }>("/api/chat", { method: "POST", body: "{}" });
    await server.json(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "hello there" }) });
    await expect.poll(async () => (await server.json<{ running: boolean }>(`/api/chat/${sessionId}`)).running, { timeout: 30_000 }).toBe(false);
    const { events } = await server.json<{ events: { type: string }[] }>(`/api/chat/${sessionId}/events`);
    expect(events.at(-1)).toMatchObject({ type: "turn_completed" });

    const report = await server.json<{ extensions: { name: string; failures: number; lastError?: { point: string; message: string; at: number } }[] }>("/api/extensions");
    const broken = report.extensions.find((e) => e.name === "quota_check")!;
    expect(broken).toMatchObject({ failures: 1, lastError: { point: "BEFORE_LLM_CALL", message: "Error: quota service unreachable" } });

    // The page: the error count, and why, under the extension's name.
    const login = await page.request.post(`${server.url}/api/auth/login`, { data: { token: SERVER_TOKEN } });
    expect(login.ok()).toBe(true);
    await page.goto(`${server.url}/extensions`);
    const row = page.locator('[data-testid="extension-row"][data-name="quota_check"]');
    await expect(row.getByTestId("extension-errors")).toHaveText("1");
    await expect(row.getByTestId("extension-last-error")).toContainText("Last error at BEFORE_LLM_CALL");
    await expect(row.getByTestId("extension-last-error")).toContainText("Error: quota service unreachable");
    await page.screenshot({ path: "e2e/screenshots/extension-last-error.png" });

    // The CLI: a line per failing extension below the table.
    const env = { ...process.env, MODEX_URL: server.url, MODEX_TOKEN: SERVER_TOKEN };
    const { stdout } = await run(process.execPath, [CLI, "extensions"], { env });
    expect(stdout).toContain(`last error of quota_check: BEFORE_LLM_CALL at ${new Date(broken.lastError!.at).toISOString()}: Error: quota service unreachable`);

    // Reset on the page: the counts go to zero and the latest error goes, on the server too.
    await page.getByRole("button", { name: "Reset statistics" }).click();
    await expect(row.getByTestId("extension-errors")).toHaveText("0");
    await expect(row.getByTestId("extension-calls")).toHaveText("0");
    await expect(row.getByTestId("extension-last-error")).toHaveCount(0);
    const after = await server.json<{ extensions: { name: string; calls: number; failures: number; lastError?: unknown }[] }>("/api/extensions");
    expect(after.extensions.find((e) => e.name === "quota_check")).toEqual(expect.objectContaining({ calls: 0, failures: 0 }));
    expect(after.extensions.find((e) => e.name === "quota_check")).not.toHaveProperty("lastError");

    // And from the CLI, after another failing turn.
    await server.json(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "again" }) });
    await expect.poll(async () => (await server.json<typeof after>("/api/extensions")).extensions.find((e) => e.name === "quota_check")!.failures, { timeout: 30_000 }).toBe(1);
    expect((await run(process.execPath, [CLI, "extensions", "--reset"], { env })).stdout).toContain("statistics of 1 extensions reset");
    expect((await server.json<typeof after>("/api/extensions")).extensions.find((e) => e.name === "quota_check")).toMatchObject({ calls: 0, failures: 0 });
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});

test("the Extensions page shows the calls, errors and latest error counted before a server restart; a reset after it zeroes them", async ({ page }) => {
  const { dataDir, extensionsDir } = withThrowingExtension("modex-extension-restart-");
  const env = { MODEX_LLM_MODEL: "modex-demo", MODEX_EXTENSIONS_DIR: extensionsDir };
  let server = await (await ModexServer.start({ dataDir, env })).ready();
  try {
    const { sessionId } = await server.json<{ sessionId: string }>("/api/chat", { method: "POST", body: "{}" });
    await server.json(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "hello there" }) });
    await expect.poll(async () => (await server.json<{ running: boolean }>(`/api/chat/${sessionId}`)).running, { timeout: 30_000 }).toBe(false);
    // Stopped at once, nothing asked of the Extensions page: the stopping server saves what it counted.
    expect(await server.stop()).not.toBeNull();
    server = await (await ModexServer.start({ dataDir, env })).ready();

    const login = await page.request.post(`${server.url}/api/auth/login`, { data: { token: SERVER_TOKEN } });
    expect(login.ok()).toBe(true);
    await page.goto(`${server.url}/extensions`);
    const row = page.locator('[data-testid="extension-row"][data-name="quota_check"]');
    await expect(row.getByTestId("extension-calls")).toHaveText("1");
    await expect(row.getByTestId("extension-errors")).toHaveText("1");
    await expect(row.getByTestId("extension-last-error")).toContainText("Error: quota service unreachable");
    const report = await server.json<{ extensions: { name: string; calls: number; failures: number }[] }>("/api/extensions");
    expect(report.extensions.find((e) => e.name === "quota_check")).toMatchObject({ calls: 1, failures: 1 });

    await page.getByRole("button", { name: "Reset statistics" }).click();
    await expect(row.getByTestId("extension-calls")).toHaveText("0");
    // And the reset, too, outlives a restart.
    await server.stop();
    server = await (await ModexServer.start({ dataDir, env })).ready();
    expect((await server.json<typeof report>("/api/extensions")).extensions.find((e) => e.name === "quota_check")).toMatchObject({ calls: 0, failures: 0 });
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});
