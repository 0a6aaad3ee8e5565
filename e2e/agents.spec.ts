import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test, type Page } from "@playwright/test";
import { accessToken, editorMarkers, editorText, placeCursor, signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });

/** The model line (1-based) holding `text`. */
async function lineOf(page: Page, text: string): Promise<number> {
  return (await editorText(page)).split("\n").findIndex((l) => l.includes(text)) + 1;
}

test("the Agents page: the example agents, edit and save one, errors at their line", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
  await expect(page).toHaveURL(/\/agents$/);
  const rows = page.getByTestId("agent-row");
  // The six examples of config/agents (tests running beside this one may add their own).
  for (const name of ["assistant", "coder", "planner", "researcher", "reviewer", "writer"]) await expect(rows.filter({ hasText: new RegExp(`^${name}`) })).toHaveCount(1);

  // Open the coder: its YAML in Monaco, the tool catalog beside it.
  await rows.filter({ hasText: /^coder/ }).click();
  await expect(page).toHaveURL(/\/agents\?agent=coder$/);
  await expect.poll(() => editorText(page), { timeout: 60_000 }).toContain("name: coder");
  await expect(page.getByTestId("validation")).toHaveAttribute("data-state", "valid");
  await expect(page.getByTestId("tool-catalog")).toContainText("http_fetch");
  await expect(page.getByTestId("tool-catalog")).toContainText("asks approval");
  await expect(page.getByTestId("dirty-state")).toHaveText("saved");
  // The Save button names this platform's shortcut (Linux here), as the graph editor's does.
  await expect(page.getByTestId("save-shortcut")).toHaveText("Ctrl+S");
  await page.screenshot({ path: "e2e/screenshots/agents.png" });

  // An unknown tool: the server's issue is a marker on its line, and the header counts it.
  const toolsLine = await lineOf(page, "tools: [todo_write]");
  await placeCursor(page, toolsLine, "end");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(", rm_rf]", { delay: 10 });
  await expect(page.getByTestId("validation")).toHaveAttribute("data-state", "invalid", { timeout: 20_000 });
  await expect(page.getByTestId("validation")).toHaveText("1 error");
  await expect
    .poll(async () => (await editorMarkers(page)).filter((m) => m.owner === "modex-server").map((m) => [m.line, m.message]), { timeout: 20_000 })
    .toEqual([[toolsLine, expect.stringContaining('tools[1]: no tool named "rm_rf" in the tool catalog')]]);
  await page.getByRole("button", { name: /^Save/ }).click();
  await expect(page.getByTestId("save-notice")).toContainText("Not saved");
  await page.screenshot({ path: "e2e/screenshots/agents-error.png" });

  // Fix it, change a limit, save with Ctrl+S: a new revision, which the REST API serves.
  await placeCursor(page, toolsLine, "end");
  for (let i = 0; i < ", rm_rf]".length; i++) await page.keyboard.press("Backspace");
  await page.keyboard.type("]");
  const limitLine = await lineOf(page, "max_iterations: 20");
  await placeCursor(page, limitLine, "end");
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Backspace");
  await page.keyboard.type("18");
  await expect(page.getByTestId("validation")).toHaveAttribute("data-state", "valid", { timeout: 20_000 });
  await expect(page.getByTestId("dirty-state")).toHaveText("unsaved changes");
  const revisions = page.getByTestId("agent-revisions");
  await expect(revisions.locator("summary")).toHaveText(/^\d+ revisions?$/);
  const before = Number((await revisions.locator("summary").textContent())!.split(" ")[0]);
  await page.keyboard.press("Control+s");
  await expect(page.getByTestId("save-notice")).toHaveText("Saved as a new revision");
  await expect(page.getByTestId("dirty-state")).toHaveText("saved");
  // The new revision is listed, newest first.
  await expect(revisions.locator("summary")).toHaveText(`${before + 1} revisions`);
  await revisions.locator("summary").click();
  await expect(revisions.getByTestId("agent-revision")).toHaveCount(before + 1);
  await expect(revisions.getByTestId("agent-revision").first()).toContainText("latest");
  const res = await page.request.get("/api/agents/coder", { headers: { authorization: `Bearer ${accessToken()}` } });
  expect(res.status()).toBe(200);
  expect((await res.json()).yaml).toContain("max_iterations: 18");
  // Saving it again is no new revision.
  await page.getByRole("button", { name: /^Save/ }).click();
  await expect(page.getByTestId("save-notice")).toHaveText("No changes: this is the latest saved revision");
  expect(pageErrors).toEqual([]);
});

test("an older revision: open it, compare it with the editor, restore it as the newest", async ({ page }) => {
  const headers = { authorization: `Bearer ${accessToken()}`, "content-type": "application/yaml" };
  const v1 = "name: e2e-revisions\ndescription: First words.\ninstructions: Say hello.\n";
  const v2 = "name: e2e-revisions\ndescription: Second words.\ninstructions: Say hello, then goodbye.\ntools: [todo_write]\n";
  for (const yaml of [v1, v2]) expect((await page.request.put("/api/agents/e2e-revisions", { headers, data: yaml })).status()).toBe(200);
  await signIn(page);
  await page.goto("/agents?agent=e2e-revisions");
  await expect.poll(() => editorText(page), { timeout: 60_000 }).toBe(v2);
  const revisions = page.getByTestId("agent-revisions");
  await expect(revisions.locator("summary")).toHaveText("2 revisions");

  // With unsaved changes, the revision compares with them, and Restore (which would replace them) waits.
  await placeCursor(page, 2, "end");
  await page.keyboard.type(" And more.", { delay: 10 });
  await expect(page.getByTestId("dirty-state")).toHaveText("unsaved changes");
  await revisions.locator("summary").click();
  await revisions.getByTestId("agent-revision").last().click();
  const view = page.getByTestId("agent-revision-view");
  await expect(page.getByRole("dialog", { name: "e2e-revisions: revision #1 of 2" })).toBeVisible();
  await expect(view.getByTestId("agent-revision-diff")).toContainText("The editor (unsaved changes)");
  await expect(view.getByTestId("restore-version")).toBeDisabled();
  await expect(view).toContainText("Save or undo your changes first");
  await page.keyboard.press("Escape");

  // Saved: a third revision. Revision #1 against it: the changed lines side by side, its YAML read-only.
  await page.getByRole("button", { name: /^Save/ }).click();
  await expect(page.getByTestId("save-notice")).toHaveText("Saved as a new revision");
  await expect(revisions.locator("summary")).toHaveText("3 revisions");
  await revisions.locator("summary").click();
  await revisions.getByTestId("agent-revision").last().click();
  await expect(view.getByTestId("agent-revision-changes")).toHaveText("3 changed lines");
  const diff = view.getByTestId("side-by-side-diff");
  await expect(diff.locator('[data-kind="same"]').first()).toContainText("name: e2e-revisions");
  await expect(diff.locator('[data-kind="changed"]').first()).toContainText("description: First words.");
  await expect(diff.locator('[data-kind="changed"]').first()).toContainText("description: Second words. And more.");
  await expect(diff.locator('[data-kind="added"]')).toContainText("tools: [todo_write]");
  await page.screenshot({ path: "e2e/screenshots/agents-revision-diff.png" });
  await view.getByRole("tab", { name: "YAML" }).click();
  expect(await view.getByTestId("agent-revision-yaml").textContent()).toBe(v1);

  // Restore: saved as the newest revision (the fourth), in the editor, with nothing lost.
  await view.getByTestId("restore-version").click();
  await expect(page.getByTestId("save-notice")).toHaveText("Restored: saved as the newest revision");
  await expect(view).toBeHidden();
  expect(await editorText(page)).toBe(v1);
  await expect(page.getByTestId("dirty-state")).toHaveText("saved");
  await expect(revisions.locator("summary")).toHaveText("4 revisions");
  const history = await (await page.request.get("/api/agents/e2e-revisions/history", { headers })).json();
  expect(history).toHaveLength(4);
  expect((await (await page.request.get("/api/agents/e2e-revisions", { headers })).json()).yaml).toBe(v1);
});

test("REST: list with the tool catalog, PUT a YAML body (located errors, name check), modexctl-ready", async ({ request }) => {
  const auth = { authorization: `Bearer ${accessToken()}` };
  const list = await (await request.get("/api/agents", { headers: auth })).json();
  expect(list.agents.map((a: { name: string }) => a.name)).toContain("reviewer");
  expect(list.tools.map((t: { name: string }) => t.name)).toEqual(["deliver", "knowledge_base", "todo_write", "list_graphs", "instance_status", "run_graph", "http_fetch"]);
  const yaml = "name: e2e-helper\ndescription: Helps.\ninstructions: Help.\ntools: [list_graphs]\n";
  const put = await request.put("/api/agents/e2e-helper", { headers: { ...auth, "content-type": "application/yaml" }, data: yaml });
  expect(put.status()).toBe(200);
  expect(await put.json()).toMatchObject({ name: "e2e-helper", created: true });
  const bad = await request.put("/api/agents/e2e-helper", { headers: { ...auth, "content-type": "application/yaml" }, data: `${yaml}limits:\n  turbo: 1\n` });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error.issues).toEqual([expect.objectContaining({ pathText: "limits.turbo", line: 6 })]);
  const renamed = await request.put("/api/agents/other", { headers: { ...auth, "content-type": "application/json" }, data: { yaml } });
  expect(renamed.status()).toBe(400);
  expect((await request.get("/api/agents/nobody", { headers: auth })).status()).toBe(404);
  expect((await request.get("/api/agents")).status()).toBe(401);
});

test("modexctl agents lists the agents and prints one's YAML", async ({ baseURL }) => {
  const env = { ...process.env, MODEX_URL: baseURL, MODEX_DATA_DIR: process.env.MODEX_E2E_DATA_DIR, MODEX_TOKEN: "" };
  const cli = (...args: string[]) => promisify(execFile)(process.execPath, [path.resolve(import.meta.dirname, "../bin/modexctl.mjs"), ...args], { env, timeout: 60_000 });
  const list = await cli("agents");
  expect(list.stdout).toMatch(/^NAME\s+MODEL\s+TOOLS\s+SAVED\s+DESCRIPTION/);
  expect(list.stdout).toMatch(/\nresearcher\s+\(configured\)\s+http_fetch, todo_write\s/);
  const json = JSON.parse((await cli("agents", "--json")).stdout) as { name: string }[];
  expect(json.map((a) => a.name)).toContain("writer");
  expect((await cli("agents", "--show", "reviewer")).stdout).toContain("name: reviewer\n");
  const history = (await cli("agents", "--history", "reviewer")).stdout;
  expect(history).toMatch(/^REVISION\s+SAVED\s+SIZE\s+CONTENT\n/);
  const latest = /\n(\d+) \(latest\)\s/.exec(history)![1];
  expect((await cli("agents", "--show", "reviewer", "--revision", latest)).stdout).toContain("name: reviewer\n");
  await expect(cli("agents", "--show", "nobody")).rejects.toMatchObject({ code: 2 });
});

test("review-cycle runs from the editor to completion on the stand-in model, over the OpenAI protocol", async ({ page }) => {
  await signIn(page);
  await page.goto("/graphs/review-cycle");
  await expect.poll(() => editorText(page), { timeout: 60_000 }).toContain("agent: coder");
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByLabel("Input").fill("Write add(a, b).");
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page).toHaveURL(/\/instances\/[^/]+$/, { timeout: 30_000 });
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  // The reviewer sent the first draft back, then approved the second.
  await expect(page.getByTestId("instance-result")).toContainText('Approved draft 2 of "Write add(a, b)."');
  await page.screenshot({ path: "e2e/screenshots/agents-review-cycle.png" });
  const instanceId = page.url().split("/").at(-1)!;
  const view = await (await page.request.get(`/api/graphs/instances/${instanceId}`, { headers: { authorization: `Bearer ${accessToken()}` } })).json();
  expect(view.invocations.filter((i: { node: string }) => i.node === "coder")).toHaveLength(2);
  expect(view.invocations.filter((i: { node: string }) => i.node === "reviewer")).toHaveLength(2);
});

test("research-team: three researcher agents in parallel, joined by the writer, on the stand-in model", async ({ request }) => {
  const auth = { authorization: `Bearer ${accessToken()}` };
  const created = await (await request.post("/api/graphs/instances", { headers: auth, data: { spec: "research-team", input: "Why is the sky blue?" } })).json();
  let view: { summary: { status: string; result: { content: string }[] | null }; invocations: { node: string; startedAt: number; endedAt: number | null }[] } | null = null;
  await expect
    .poll(async () => {
      view = await (await request.get(`/api/graphs/instances/${created.instanceId}`, { headers: auth })).json();
      return view!.summary.status;
    }, { timeout: 60_000 })
    .toBe("completed");
  const answer = view!.summary.result![0].content;
  for (const r of ["researcher_history", "researcher_practice", "researcher_risks"]) expect(answer).toContain(`from ${r}:`);
  expect(view!.invocations.filter((i) => i.node === "writer")).toHaveLength(1);
  // The researchers ran at the same time: each started before any of them ended.
  const researchers = view!.invocations.filter((i) => i.node.startsWith("researcher_"));
  expect(researchers).toHaveLength(3);
  expect(Math.max(...researchers.map((i) => i.startedAt))).toBeLessThan(Math.min(...researchers.map((i) => i.endedAt!)));
});

test("the chat picks its agent when it starts", async ({ page }) => {
  await signIn(page);
  await page.goto("/chat?agent=reviewer");
  await expect(page.getByTestId("chat-agent-select")).toHaveValue("reviewer");
  await page.getByTestId("chat-agent-select").selectOption("assistant");
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("list graphs please");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/chat\?session=\d+/);
  const turn = page.getByTestId("chat-turn").first();
  await expect(turn).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turn.getByTestId("chat-tool")).toContainText("list_graphs");
  await expect(turn.getByTestId("chat-answer")).toContainText("review-cycle");
  await expect(page.getByTestId("chat-agent")).toHaveText("Agent assistant");
});

// ─── An empty Agents page, and one whose list cannot load: a second server on the same build ───────────

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

test("the Agents page with no agents (empty state) and with the server gone (error state)", async ({ browser }) => {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-e2e-agents-empty-"));
  const port = await freePort();
  const token = "e2e-agents-empty-token-0123456789abcdef";
  let server: ChildProcess | null = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port)], {
    env: { ...process.env, PORT: String(port), MODEX_DATA_DIR: path.join(dir, "data"), MODEX_AGENTS_DIR: path.join(dir, "no-agents"), MODEX_TOKEN: token, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: "ignore",
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await expect.poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, { timeout: 60_000 }).toBe(200);
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    expect((await page.request.post("/api/auth/login", { data: { token } })).ok()).toBe(true);
    await page.goto("/agents");
    await expect(page.getByTestId("empty-state")).toContainText("No agents yet");
    await page.screenshot({ path: "e2e/screenshots/agents-empty.png" });
    // "New agent" starts from the template; saving it makes the first agent.
    await page.getByRole("button", { name: "Create your first agent" }).click();
    await expect.poll(() => editorText(page), { timeout: 60_000 }).toContain("name: my-agent");
    await page.getByRole("button", { name: /^Save/ }).click();
    await expect(page).toHaveURL(/\/agents\?agent=my-agent$/);
    await expect(page.getByTestId("agent-row")).toHaveText([/^my-agent/]);

    // The server goes away: the list says it could not load, with a retry.
    server.kill("SIGTERM");
    await new Promise((r) => server!.once("exit", r));
    server = null;
    // The list refetches every 10 s (and retries before it gives up).
    await expect(page.getByTestId("error-state")).toContainText("Could not load the agents", { timeout: 45_000 });
    await page.screenshot({ path: "e2e/screenshots/agents-list-error.png" });
    await context.close();
  } finally {
    server?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
});
