import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { auth, oneCallAgentSpec, saveSpec, signIn } from "./support/session";
import { create } from "./support/runs";

test.describe.configure({ timeout: 180_000 });

async function settled(request: APIRequestContext, id: string): Promise<string> {
  let status = "running";
  await expect
    .poll(
      async () => {
        status = ((await (await request.get(`/api/graphs/instances/${id}`, { headers: auth() })).json()) as { summary: { status: string } }).summary.status;
        return status;
      },
      { timeout: 60_000 },
    )
    .not.toBe("running");
  return status;
}

async function shoot(page: Page, name: string) {
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(300); // the canvas fits itself to the new size
    await page.screenshot({ path: `e2e/screenshots/${name}-${w}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const node = (page: Page, name: string) => page.locator(`[data-testid="canvas-node"][data-node="${name}"]`);

test("counter-loop: the state panel, no JOIN on a loop entry, per-instance event numbers, a filtered and resizable timeline", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const id = await create(page.request, "counter-loop", null);
  await settled(page.request, id);
  await page.goto(`/instances/${id}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(node(page, "tick")).toHaveAttribute("data-state", "completed");
  // tick has two incoming edges (start, check) but does not wait for both: no JOIN badge anywhere.
  await expect(page.getByTestId("join-badge")).toHaveCount(0);

  const state = page.getByTestId("state-panel");
  await expect(state.locator('[data-field="count"]')).toContainText("count");
  await expect(state.locator('[data-field="count"]')).toContainText("number");
  await expect(state.locator('[data-field="count"] dd')).toHaveText("5");
  await expect(page.getByTestId("instance-duration")).toHaveText(/^\d+ ms$|^\d+\.\d s$/);

  // Event numbers count from 1 within the instance; one time format (HH:MM:SS.mmm today).
  const rows = page.getByTestId("timeline-row");
  await page.getByTestId("event-timeline").getByRole("list").evaluate((el) => (el.scrollTop = 0));
  await expect(rows.first()).toHaveAttribute("data-number", "1");
  await expect(rows.first()).toContainText(/#1\s*\d{2}:\d{2}:\d{2}\.\d{3}/);
  // A row's detail is cut to its line; the whole of it is its tooltip.
  const firstDetail = rows.first().getByTestId("timeline-detail");
  await expect(firstDetail).toHaveAttribute("title", (await firstDetail.textContent()) ?? "");

  // Filter by node, then by type.
  await page.getByLabel("Filter events by node").selectOption("tick");
  await expect(page.getByTestId("timeline-count")).toContainText(/Events · \d+ of \d+/);
  const detail = await rows.evaluateAll((els) => els.map((e) => e.textContent ?? ""));
  expect(detail.length).toBeGreaterThan(0);
  for (const text of detail) expect(text).toContain("tick");
  await page.getByLabel("Filter events by type").selectOption("node_completed");
  await expect(rows).toHaveCount(5);
  await expect(rows.first()).toHaveAttribute("data-type", "node_completed");
  await shoot(page, "instance-state-filter");
  await page.getByRole("button", { name: "clear" }).click();
  await expect(page.getByTestId("timeline-count")).not.toContainText(" of ");

  // Resize the timeline by dragging its top edge; the height is kept across reloads.
  const panel = page.getByTestId("timeline-panel");
  const before = (await panel.boundingBox())!.height;
  const handle = (await page.getByTestId("timeline-resize").boundingBox())!;
  await page.mouse.move(handle.x + 200, handle.y + 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + 200, handle.y - 150, { steps: 5 });
  await page.mouse.up();
  const after = (await panel.boundingBox())!.height;
  expect(after).toBeGreaterThan(before + 100);
  await page.reload();
  await expect(page.getByTestId("timeline-panel")).toBeVisible({ timeout: 30_000 });
  // The page arrives with the default height; the remembered one is applied once it has hydrated.
  await expect.poll(async () => Math.abs((await page.getByTestId("timeline-panel").boundingBox())!.height - after)).toBeLessThan(3);

  // Re-invoke: each version keeps its own duration and numbering goes on from the first version's.
  const v1Duration = await page.getByTestId("instance-duration").textContent();
  await page.request.post(`/api/graphs/instances/${id}/reinvoke`, { data: { input: null }, headers: auth() });
  await settled(page.request, id);
  await page.reload();
  await expect(page.getByLabel("Version")).toHaveValue("2", { timeout: 30_000 });
  const v2Rows = page.getByTestId("timeline-row");
  await page.getByTestId("event-timeline").getByRole("list").evaluate((el) => (el.scrollTop = 0));
  expect(Number(await v2Rows.first().getAttribute("data-number"))).toBeGreaterThan(20);
  await page.getByLabel("Version").selectOption("1");
  await expect(page.getByTestId("instance-duration")).toHaveText(v1Duration!);
  await expect(page.getByTestId("state-panel")).toContainText("v1");
  expect(pageErrors).toEqual([]);
});

test("subgraph: prepare shows completed, the subgraph node shows its inner graph, inner events are the inner graph's", async ({ page }) => {
  await signIn(page);
  const id = await create(page.request, "subgraph", "bob");
  await settled(page.request, id);
  await page.goto(`/instances/${id}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(node(page, "prepare")).toHaveAttribute("data-state", "completed");
  await expect(node(page, "greeting")).toHaveAttribute("data-state", "completed");
  await expect(node(page, "greeting")).toContainText("2/2 inner");
  await expect(node(page, "finish")).toHaveAttribute("data-state", "completed");
  // No outer node is named after the inner graph's nodes.
  await expect(node(page, "format")).toHaveCount(0);

  await node(page, "greeting").click();
  const inner = page.getByTestId("inner-graph");
  await expect(inner.locator('[data-node="format"]')).toHaveAttribute("data-state", "completed");
  await expect(inner.locator('[data-node="shout"]')).toHaveAttribute("data-state", "completed");

  // Inner events carry their subgraph node's name; they can be hidden and shown again.
  const scoped = page.locator('[data-testid="timeline-row"][data-scope="greeting"]');
  await page.getByTestId("event-timeline").getByRole("list").evaluate((el) => (el.scrollTop = 0));
  await expect(scoped.first()).toContainText("greeting ›");
  await shoot(page, "instance-subgraph");
  await page.getByLabel("Show subgraph events").uncheck();
  await expect(scoped).toHaveCount(0);
  await expect(page.getByTestId("timeline-row").first()).toBeVisible();
  await page.getByLabel("Show subgraph events").check();
  await page.getByLabel("Filter events by node").selectOption("greeting/format");
  await expect(page.getByTestId("timeline-row").first()).toHaveAttribute("data-scope", "greeting");
});

test("a failed run says why: the node and its error", async ({ page }) => {
  await signIn(page);
  const name = `e2e-fails-${Date.now().toString(36)}`;
  // An agent node that may call the model only once cannot deliver: it fails, saying so.
  await saveSpec(page.request, oneCallAgentSpec(name));
  const id = await create(page.request, name, "go");
  expect(await settled(page.request, id)).toBe("failed");
  await page.goto(`/instances/${id}`);
  const reason = page.getByTestId("failure-reason");
  await expect(reason).toContainText("Failed at node writer", { timeout: 30_000 });
  await expect(page.getByTestId("instance-summary")).toContainText("none: the run failed");
  await shoot(page, "instance-failed");
});

test("Stop asks first and says it cannot be undone; Resume clears 'Pausing'; a running run's duration ticks", async ({ page }) => {
  await signIn(page);
  const name = `e2e-stoppable-${Date.now().toString(36)}`;
  // Twelve 4-second steps: on a loaded machine the pause, resume and stop below still find it running.
  const steps = Array.from({ length: 12 }, (_, i) => `s${i}`);
  await saveSpec(
    page.request,
    `name: ${name}
version: "1"
nodes:
${steps.map((s) => `  - { name: ${s}, node_type: delay, config: { ms: 4000 } }`).join("\n")}
edges:
${["__start__", ...steps].map((from, i) => `  - { from: ${from}, to: ${steps[i] ?? "__end__"} }`).join("\n")}
`,
  );
  const id = await create(page.request, name, null);
  await page.goto(`/instances/${id}`);
  const view = page.getByTestId("instance-view");
  await expect(view).toHaveAttribute("data-status", "running", { timeout: 30_000 });
  const duration = page.getByTestId("instance-duration");
  const first = await duration.textContent();
  await page.waitForTimeout(1_500);
  await expect(duration).not.toHaveText(first!);
  await expect(duration).toContainText("running");

  // Pause, then Resume: no stale "Pausing" note afterwards.
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(view).toHaveAttribute("data-status", "paused", { timeout: 30_000 });
  await expect(page.getByTestId("draining")).toHaveCount(0);
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await expect(view).toHaveAttribute("data-status", "running", { timeout: 30_000 });
  await page.waitForTimeout(1_000);
  await expect(page.getByTestId("draining")).toHaveCount(0);

  // Stop asks first; Cancel changes nothing.
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Stop this run?" });
  await expect(dialog).toContainText("This cannot be undone");
  await shoot(page, "instance-stop-confirm");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(view).toHaveAttribute("data-status", "running");
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await page.getByRole("dialog", { name: "Stop this run?" }).getByRole("button", { name: "Stop the run" }).click();
  await expect(view).toHaveAttribute("data-status", "stopped", { timeout: 30_000 });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

test("the header and the live view say 'reconnecting' within 2 s of the server stopping", async ({ browser }) => {
  // A server of its own (same build, its own data directory), so that stopping it leaves the others be.
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "modex-e2e-stop-"));
  const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    env: { ...process.env, MODEX_DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port) },
    stdio: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await expect.poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.ok ?? false, { timeout: 90_000 }).toBe(true);
    const token = readFileSync(path.join(dataDir, "access-token"), "utf8").trim();
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    expect((await page.request.post("/api/auth/login", { data: { token } })).ok()).toBe(true);
    const created = await page.request.post("/api/graphs/instances", { data: { spec: "approval-gate", input: "x" }, headers: { authorization: `Bearer ${token}` } });
    const { instanceId } = (await created.json()) as { instanceId: string };
    await page.goto(`/instances/${instanceId}`);
    await expect(page.getByTestId("engine-status")).toHaveAttribute("data-status", "ok", { timeout: 30_000 });
    await expect(page.getByTestId("live-status")).toHaveAttribute("data-live", "live", { timeout: 30_000 });

    // Stopped: the process has exited (a SIGTERM lets Next.js finish what its open connections ask
    // first; after 10 s it is killed). The 2 s count from then.
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    const late = setTimeout(() => server.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(late);
    const stoppedAt = Date.now();
    await expect(page.getByTestId("engine-status")).toHaveAttribute("data-status", "down", { timeout: 2_000 });
    await expect(page.getByTestId("engine-status")).toContainText("Reconnecting");
    await expect(page.getByTestId("live-status")).toHaveAttribute("data-live", "reconnecting", { timeout: 2_000 });
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    await shoot(page, "engine-reconnecting");
    await context.close();
  } finally {
    server.kill("SIGKILL");
  }
});
