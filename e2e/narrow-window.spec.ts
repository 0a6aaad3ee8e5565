import { expect, type Locator, type Page, test } from "@playwright/test";
import { auth, saveSpec, signIn } from "./support/session";

/**
 * A 1024 × 768 window (a laptop with a side panel open, a small screen): every page's controls stay in
 * the window, no page scrolls sideways, and no table clips a row's actions.
 */
test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1024, height: 768 } });

/** Console errors and failed requests of the page, from now on. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => {
    if (!r.failure()?.errorText.includes("ERR_ABORTED")) errors.push(`request: ${r.url()} ${r.failure()?.errorText}`);
  });
  return errors;
}

/** The canvas's zoom (React Flow's viewport transform). */
function canvasZoom(canvas: Locator): Promise<number> {
  return canvas.locator(".react-flow__viewport").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).a);
}

/** Whether every node card (and START and END) lies inside the canvas. */
function allCardsInside(canvas: Locator): Promise<boolean> {
  return canvas.evaluate((c) => {
    const outer = c.getBoundingClientRect();
    return [...c.querySelectorAll(".react-flow__node")].every((n) => {
      const b = n.getBoundingClientRect();
      return b.left >= outer.left - 0.5 && b.right <= outer.right + 0.5 && b.top >= outer.top - 0.5 && b.bottom <= outer.bottom + 0.5;
    });
  });
}

/** The element lies wholly inside `container`, on both axes. */
async function expectWhollyInside(el: Locator, container: Locator): Promise<void> {
  const [b, c] = [(await el.boundingBox())!, (await container.boundingBox())!];
  expect(b.x).toBeGreaterThanOrEqual(c.x - 0.5);
  expect(b.y).toBeGreaterThanOrEqual(c.y - 0.5);
  expect(b.x + b.width).toBeLessThanOrEqual(c.x + c.width + 0.5);
  expect(b.y + b.height).toBeLessThanOrEqual(c.y + c.height + 0.5);
}

async function expectNoSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
}

/** The element lies wholly inside the window (and inside `container`, when given). */
async function expectInside(el: Locator, container?: Locator): Promise<void> {
  const box = await el.boundingBox();
  expect(box).not.toBeNull();
  const outer = container ? await container.boundingBox() : { x: 0, y: 0, width: 1024, height: Number.POSITIVE_INFINITY };
  expect(outer).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(outer!.x);
  expect(box!.x + box!.width).toBeLessThanOrEqual(outer!.x + outer!.width + 0.5);
  expect(box!.x + box!.width).toBeLessThanOrEqual(1024);
}

test("Graphs list and editor at 1024 px: each row's Run button inside the table, Save and Run in the window", async ({ page }) => {
  const errors = watchErrors(page);
  await signIn(page);
  await page.goto("/graphs");
  const row = page.getByTestId("spec-row").filter({ hasText: "release-notes" }); // the example with the longest description
  await expect(row).toBeVisible();
  await expectInside(row.getByRole("button", { name: "Run release-notes" }), page.locator("table").locator(".."));
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: "e2e/screenshots/narrow-graphs-1024.png", fullPage: true });

  await page.goto("/graphs/research-team");
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  await expectInside(page.getByRole("button", { name: /^Save/ }));
  await expectInside(page.getByRole("button", { name: "▶ Run" }));
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: "e2e/screenshots/narrow-editor-1024.png" });
  expect(errors).toEqual([]);
});

test("an instance waiting for input at 1024 px: the answer card and every control in the window", async ({ page }) => {
  const errors = watchErrors(page);
  const res = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "approval-gate", input: "release 1024" } });
  const { instanceId } = (await res.json()) as { instanceId: string };
  await signIn(page);
  await page.goto(`/instances/${instanceId}`);
  await expect(page.getByTestId("human-input-card")).toHaveAttribute("data-state", "waiting", { timeout: 30_000 });
  await expectInside(page.getByLabel("Your answer"));
  await expectInside(page.getByRole("button", { name: "Answer and resume" }));
  for (const control of ["Pause", "Resume", "Stop", "Deliver…", "Re-invoke…"]) await expectInside(page.getByRole("button", { name: control, exact: true }));
  // The graph's name stays whole and "● live" on one line; the id gives way (its tooltip holds it).
  expect(await page.getByRole("heading", { level: 1, name: "approval-gate" }).evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  expect((await page.getByTestId("live-status").boundingBox())!.height).toBeLessThan(20);
  await expect(page.getByTestId("toolbar-instance-id")).toHaveAttribute("title", instanceId);
  // The canvas is not fitted below zoom 0.8 (text of 9 px or more), and the graph, wrapped in rows,
  // opens whole: its END was under the side panel when it was laid out in one row.
  const canvas = page.getByTestId("instance-canvas");
  await expect(canvas.locator('[data-testid="canvas-node"][data-node="approve"]')).toHaveAttribute("data-state", "waiting");
  await expect(canvas).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  await expect.poll(() => allCardsInside(canvas)).toBe(true);
  expect(await canvasZoom(canvas)).toBeGreaterThanOrEqual(0.8);
  await expectWhollyInside(canvas.locator('.react-flow__node[data-id="__end__"]'), canvas);
  await expect(canvas.getByTestId("pan-hint")).toHaveCount(0);
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: "e2e/screenshots/narrow-instance-1024.png" });
  expect(errors).toEqual([]);
});

test("the instance canvas fits again when the window is resized, until the user pans or zooms it by hand", async ({ page }) => {
  const errors = watchErrors(page);
  const res = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "approval-gate", input: "resize" } });
  const { instanceId } = (await res.json()) as { instanceId: string };
  await page.setViewportSize({ width: 1920, height: 1080 });
  await signIn(page);
  await page.goto(`/instances/${instanceId}`);
  const canvas = page.getByTestId("instance-canvas");
  await expect(canvas).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  const viewport = canvas.locator(".react-flow__viewport");
  const transform = () => viewport.evaluate((el) => getComputedStyle(el).transform);
  const zoom = () => canvasZoom(canvas);
  const allInside = () => allCardsInside(canvas);
  /** A few frames: long enough for a resize's fit to have run, had there been one. */
  const settle = () => page.evaluate(() => new Promise<void>((done) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() => done())), 300)));
  // Wide: the whole graph fits above the readable zoom.
  await expect.poll(allInside).toBe(true);
  expect(await zoom()).toBeGreaterThan(0.85);

  // Narrowed: fitted again at once, smaller, still whole and readable (the graph is laid out in rows).
  const wideZoom = await zoom();
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect.poll(zoom).toBeLessThan(wideZoom - 0.1);
  await expect.poll(allInside).toBe(true);
  expect(await zoom()).toBeGreaterThanOrEqual(0.8);
  await page.screenshot({ path: "e2e/screenshots/instance-canvas-refit-1024.png" });

  // Panned by hand: a resize leaves the user's view alone.
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + 60, box.y + box.height - 40);
  await page.mouse.down();
  await page.mouse.move(box.x + 160, box.y + box.height - 60, { steps: 5 });
  await page.mouse.up();
  await settle();
  const panned = await transform();
  await page.setViewportSize({ width: 1280, height: 800 });
  await settle();
  expect(await transform()).toBe(panned);

  // The fit button shows it whole, and resizes fit it whole again from then on.
  await canvas.getByRole("button", { name: "Fit View" }).click();
  await expect.poll(allInside).toBe(true);
  await page.setViewportSize({ width: 1100, height: 800 });
  await expect.poll(allInside).toBe(true);
  await page.screenshot({ path: "e2e/screenshots/instance-canvas-refit-whole-1100.png" });
  expect(errors).toEqual([]);
});

test("an instance with a long node name and a long input at 1024 px: the name wraps in Breakpoints, the input opens whole", async ({ page }) => {
  const errors = watchErrors(page);
  const graph = `e2e-long-names-${Date.now().toString(36)}`;
  const long = "normalize_the_customer_support_ticket_before_routing_it";
  await saveSpec(
    page.request,
    `name: ${graph}
version: "1"
nodes:
  - { name: ${long}, node_type: function, config: { op: template, template: "{{input}}" } }
  - { name: reply, node_type: function, config: { op: template, template: "{{input}}" } }
edges:
  - { from: __start__, to: ${long} }
  - { from: ${long}, to: reply }
  - { from: reply, to: __end__ }
`,
  );
  const input = `Customer writes: ${"the export button does nothing when the report has more than ten thousand rows, ".repeat(4)}please help.`;
  // Held before its last node, so the page stays as it is while we look.
  const res = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: graph, input, breakpoints: ["reply"] } });
  expect(res.status()).toBe(201);
  const { instanceId } = (await res.json()) as { instanceId: string };
  await signIn(page);
  await page.goto(`/instances/${instanceId}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "paused", { timeout: 30_000 });

  // Breakpoints: the whole name shows (wrapped), inside the sidebar; its tooltip holds it too.
  const panel = page.getByRole("region", { name: "Breakpoints" });
  const name = panel.getByTestId("breakpoint-node").filter({ hasText: long });
  await expect(name).toHaveText(long);
  await expect(name).toHaveAttribute("title", long);
  expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await expectInside(name, panel);
  await expect(panel.getByLabel(`Pause before ${long}`)).toBeVisible();

  // The input: its start wrapped over several lines, all of it on hover and behind "Show all".
  const shown = page.getByTestId("instance-input");
  await expect(shown).toHaveAttribute("title", input);
  await expect(shown).toContainText(input.slice(0, 100));
  expect((await shown.boundingBox())!.height).toBeGreaterThan(30);
  await expectInside(shown, page.getByTestId("instance-summary"));
  await page.getByTestId("instance-summary").screenshot({ path: "e2e/screenshots/narrow-long-input-1024.png" });
  await page.getByTestId("instance-summary").getByRole("button", { name: "Show all" }).click();
  await expect(shown).toHaveText(input);
  await expectInside(shown, page.getByTestId("instance-summary"));
  await expectNoSidewaysScroll(page);
  await page.getByTestId("instance-summary").scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/screenshots/narrow-long-names-1024.png" });
  await page.getByTestId("instance-summary").getByRole("button", { name: "Show less" }).click();
  await expect(shown).not.toHaveText(input);
  expect(errors).toEqual([]);
});

test("the Instances list at 1024 px: one line per run, the actions inside the table", async ({ page }) => {
  const res = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "approval-gate", input: "release 1024" } });
  const { instanceId } = (await res.json()) as { instanceId: string };
  await expect
    .poll(async () => (await (await page.request.get(`/api/graphs/instances/${instanceId}`, { headers: auth() })).json()).waitingFor !== null, { timeout: 20_000 })
    .toBe(true);
  await signIn(page);
  await page.goto("/instances");
  const row = page.getByTestId("instance-row").filter({ hasText: instanceId });
  const badge = row.getByTestId("status-badge");
  await expect(badge).toHaveText("waiting for input");
  // One line: a badge of two lines is about twice as tall as a one-line cell's text.
  expect((await badge.boundingBox())!.height).toBeLessThan(28);
  expect((await row.boundingBox())!.height).toBeLessThan(56);
  await row.hover();
  await expectInside(row.getByRole("button", { name: /^Delete/ }), page.locator("table").locator(".."));
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: "e2e/screenshots/narrow-instances-1024.png" });
});

test("Chat and Agents at 1024 px: the composer's Send and the agent's Save in the window", async ({ page }) => {
  const errors = watchErrors(page);
  await signIn(page);
  await page.goto("/chat");
  await expectInside(page.getByRole("button", { name: "Send" }));
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: "e2e/screenshots/narrow-chat-1024.png" });

  await page.goto("/agents?agent=assistant");
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  await expectInside(page.getByRole("button", { name: /^Save/ }));
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: "e2e/screenshots/narrow-agents-1024.png" });
  expect(errors).toEqual([]);
});
