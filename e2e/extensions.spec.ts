import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { auth, signIn } from "./support/session";

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, "../bin/modexctl.mjs");

// One after another: the CLI test turns the sample off for a moment, which the masking tests rely on.
test.describe.configure({ timeout: 120_000, mode: "serial" });

// config/extensions/demo-secret-filter.mjs, loaded by the production server at start-up, hides these.
const SECRET = "MODEX-DEMO-SECRET-e2e4242";
const HIDDEN = "[demo secret hidden]";
test("the sample extension masks a secret in a streamed chat answer before the browser sees it", async ({ page }) => {
  await signIn(page);
  await page.goto("/chat");
  // Every text the page ever shows in an answer, watched as it streams in (not only the final state).
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seenAnswers: string[] }).seenAnswers = seen;
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid="chat-answer"]')) seen.push(el.textContent ?? "");
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill(`my key is ${SECRET} ok`);
  await box.press("Enter");
  const turn = page.getByTestId("chat-turn").first();
  await expect(turn).toHaveAttribute("data-state", "completed", { timeout: 30_000 });
  await expect(turn.getByTestId("chat-answer")).toHaveText(`You said: my key is ${HIDDEN} ok. Modex is listening.`);
  const seen = await page.evaluate(() => (window as unknown as { seenAnswers: string[] }).seenAnswers);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.filter((t) => t.includes("MODEX-DEMO"))).toEqual([]);
  // What the server streamed and logged for the chat holds no secret either (the user's own message aside).
  const sessionId = new URL(page.url()).searchParams.get("session")!;
  const res = await page.request.get(`/api/trpc/chat.events?input=${encodeURIComponent(JSON.stringify({ sessionId }))}`, { headers: auth() });
  expect(res.status()).toBe(200);
  const events = await res.text();
  expect(events).toContain(HIDDEN);
  expect(events.replaceAll(`my key is ${SECRET} ok`, "")).not.toContain(SECRET);
  await page.screenshot({ path: "e2e/screenshots/extensions-chat.png" });
});

test("the sample extension masks a secret in what an agent node delivers, in the instance view", async ({ page }) => {
  await signIn(page);
  const created = await (await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "review-cycle", input: `Write add(a, b) with ${SECRET}.` } })).json();
  await page.goto(`/instances/${created.instanceId}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(page.getByTestId("instance-result")).toContainText(`Approved draft 2 of "Write add(a, b) with ${HIDDEN}."`);
  await expect(page.getByTestId("instance-result")).not.toContainText(SECRET);
  // Nothing the view shows holds the secret, but the user's own input where it is quoted.
  const input = `Write add(a, b) with ${SECRET}.`;
  expect((await page.locator("main").innerText()).replaceAll(input, "")).not.toContain(SECRET);
  const view = await (await page.request.get(`/api/graphs/instances/${created.instanceId}`, { headers: auth() })).json();
  // What the agent nodes delivered is masked; the run's own input (delivered from __start__) is the user's.
  const byAgents = (view.delivers as { source: string; content: unknown }[]).filter((d) => d.source === "coder" || d.source === "reviewer");
  expect(byAgents.length).toBeGreaterThanOrEqual(3);
  for (const d of byAgents) expect(JSON.stringify(d.content)).not.toContain(SECRET);
  expect(JSON.stringify(byAgents)).toContain(HIDDEN);
  await page.screenshot({ path: "e2e/screenshots/extensions-instance.png" });
});

test("the Extensions page: each extension with points, priority and statistics; a toggle is saved on the server", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  await page.goto("/");
  await page.getByRole("link", { name: "Extensions" }).click();
  await expect(page).toHaveURL(/\/extensions$/);
  // The folder this server reads (MODEX_EXTENSIONS_DIR, here its default), as the server resolved it.
  await expect(page.getByTestId("extensions-intro")).toContainText(`Add one in ${path.resolve(import.meta.dirname, "../config/extensions")} (built-ins`);
  const sample = page.locator('[data-testid="extension-row"][data-name="demo_secret_filter"]');
  // The module by its file name (the folder is the one named above), its whole path in the tooltip.
  await expect(sample.getByTestId("extension-source")).toHaveText("demo-secret-filter.mjs");
  await expect(sample.getByTestId("extension-source")).toHaveAttribute("title", path.resolve(import.meta.dirname, "../config/extensions/demo-secret-filter.mjs"));
  await expect(sample).toContainText("DURING_LLM_STREAMING");
  await expect(sample).toContainText("BEFORE_TOOL_PARSE");
  const masking = page.locator('[data-testid="extension-row"][data-name="secret_masking"]');
  await expect(masking).toContainText("built-in");
  await expect(masking).toContainText("masked:");
  await page.screenshot({ path: "e2e/screenshots/extensions.png" });

  // Off, kept on the server (REST sees it, a reload shows it), then on again.
  const toggle = masking.getByRole("switch", { name: "secret_masking enabled" });
  await expect(toggle).toBeChecked();
  await toggle.click();
  await expect(toggle).not.toBeChecked();
  const report = await (await page.request.get("/api/extensions", { headers: auth() })).json();
  expect(report.extensions.find((e: { name: string }) => e.name === "secret_masking")).toMatchObject({ enabled: false, source: { kind: "builtin" } });
  await page.reload();
  await expect(page.getByRole("switch", { name: "secret_masking enabled" })).not.toBeChecked();
  await page.getByRole("switch", { name: "secret_masking enabled" }).click();
  await expect(page.getByRole("switch", { name: "secret_masking enabled" })).toBeChecked();
  expect((await page.request.put("/api/extensions/ghost", { headers: auth(), data: { enabled: true } })).status()).toBe(404);
  expect(pageErrors).toEqual([]);
});

test("statistics count the sample's calls after a chat turn", async ({ request }) => {
  const before = await (await request.get("/api/extensions", { headers: auth() })).json();
  const calls = (r: { extensions: { name: string; calls: number }[] }) => r.extensions.find((e) => e.name === "demo_secret_filter")!.calls;
  const sent = await request.post("/api/trpc/chat.send", { headers: { ...auth(), "content-type": "application/json" }, data: { message: "count me" } });
  expect(sent.status()).toBe(200);
  await expect.poll(async () => calls(await (await request.get("/api/extensions", { headers: auth() })).json()), { timeout: 30_000 }).toBeGreaterThan(calls(before));
});

test("modexctl extensions lists them and turns one off and on", async ({ baseURL }) => {
  const cli = async (...args: string[]) => {
    const env = { ...process.env, MODEX_URL: baseURL!, MODEX_DATA_DIR: process.env.MODEX_E2E_DATA_DIR, MODEX_TOKEN: "" };
    return (await run(process.execPath, [CLI, ...args], { env })).stdout;
  };
  const table = await cli("extensions");
  expect(table).toMatch(/NAME\s+ON\s+PRIORITY\s+CALLS\s+ERRORS\s+VETOES\s+TIME MS\s+POINTS/);
  expect(table).toMatch(/demo_secret_filter\s+yes\s+80/);
  const listed = JSON.parse(await cli("extensions", "--json"));
  expect(listed.extensions.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(["demo_secret_filter", "secret_masking"]));
  expect(listed.failed).toEqual([]);
  expect(await cli("extensions", "--disable", "demo_secret_filter")).toContain("demo_secret_filter disabled");
  expect(JSON.parse(await cli("extensions", "--json")).extensions.find((e: { name: string }) => e.name === "demo_secret_filter").enabled).toBe(false);
  expect(await cli("extensions", "--enable", "demo_secret_filter")).toContain("demo_secret_filter enabled");
});
