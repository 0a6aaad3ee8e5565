import { expect, type Locator, type Page, test } from "@playwright/test";
import { accessToken, editorText, placeCursor, saveSpec, setEditorText, signIn } from "./support/session";

/**
 * When a canvas's view is fitted for you, and when it is left alone: one rule for the editor's preview
 * and the instance canvas (components/canvas/view-follow.ts). A real layout change (the window, a
 * panel the user resized, a new node set) fits again; a banner coming or going does not; a view the
 * user panned or zoomed by hand stays until the fit button; the fit button and every automatic fit
 * frame the graph alike.
 */
test.describe.configure({ timeout: 120_000 });

const uid = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

/** The view's transform, as numbers: zoom and translation. */
async function view(canvas: Locator): Promise<{ zoom: number; x: number; y: number }> {
  const m = await canvas.locator(".react-flow__viewport").evaluate((el) => {
    const t = new DOMMatrixReadOnly(getComputedStyle(el).transform);
    return { zoom: t.a, x: t.e, y: t.f };
  });
  return m;
}

/** How many of the canvas's nodes lie wholly inside it. */
async function inside(canvas: Locator): Promise<number> {
  const c = (await canvas.boundingBox())!;
  const boxes = await canvas.locator(".react-flow__node").evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect));
  return boxes.filter((b) => b.left >= c.x - 1 && b.right <= c.x + c.width + 1 && b.top >= c.y - 1 && b.bottom <= c.y + c.height + 1).length;
}

/** A few frames: long enough for a fit to have run, had there been one. */
const settle = (page: Page) => page.evaluate(() => new Promise<void>((done) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() => done())), 400)));

function expectSameView(a: { zoom: number; x: number; y: number }, b: { zoom: number; x: number; y: number }): void {
  expect(a.zoom).toBeCloseTo(b.zoom, 3);
  expect(a.x).toBeCloseTo(b.x, 0);
  expect(a.y).toBeCloseTo(b.y, 0);
}

/** A chain START → nodes… → END. */
const spec = (name: string, nodes = ["fetch", "check", "publish"]) =>
  [
    `name: ${name}`,
    'version: "1"',
    "nodes:",
    ...nodes.map((n) => `  - { name: ${n}, node_type: function, config: { op: identity } }`),
    "edges:",
    ...["__start__", ...nodes].map((from, i) => `  - { from: ${from}, to: ${nodes[i] ?? "__end__"} }`),
    "",
  ].join("\n");

test("the editor's preview: a banner coming or going leaves the view alone, a resized window fits it again, a hand-moved view stays", async ({ page }) => {
  const name = `e2e-fit-${uid()}`;
  await saveSpec(page.request, spec(name));
  await signIn(page);
  await page.goto(`/graphs/${name}`);
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  await expect.poll(() => editorText(page)).toContain(`name: ${name}`);

  // A draft left behind (typed, then reloaded): the draft banner above the editor and the preview.
  await placeCursor(page, 1, "end");
  await page.keyboard.type(" # draft");
  await expect(page.getByTestId("dirty-state")).toHaveText("unsaved changes");
  page.once("dialog", (d) => void d.accept());
  await page.reload();
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  const banner = page.getByTestId("draft-banner");
  await expect(banner).toBeVisible();
  const preview = page.getByTestId("spec-preview");
  await expect(preview).toHaveAttribute("data-node-count", "5");
  await settle(page);
  const before = await view(preview);
  const heightWithBanner = (await preview.boundingBox())!.height;

  // The banner goes: the preview grows by its height, and the view stays where it was.
  await page.getByRole("button", { name: "Discard" }).click();
  await expect(banner).toHaveCount(0);
  await settle(page);
  expect((await preview.boundingBox())!.height).toBeGreaterThan(heightWithBanner + 10);
  expectSameView(await view(preview), before);

  // The problems banner over the preview (an edge to a node that is not declared) does not move it either.
  const text = await editorText(page);
  await setEditorText(page, text.replace("  - { from: publish, to: __end__ }", "  - { from: publish, to: sign }"));
  await expect(page.getByTestId("preview-problem")).toContainText('unknown node "sign"');
  await settle(page);
  expectSameView(await view(preview), before);
  await setEditorText(page, text);
  await expect(page.getByTestId("preview-problem")).toHaveCount(0);

  // The window is resized: a real layout change, fitted again.
  await page.setViewportSize({ width: 1100, height: 700 });
  await expect.poll(async () => (await view(preview)).y).not.toBeCloseTo(before.y, 0);

  // Panned by hand: neither a resize nor a new node moves the view from then on.
  const box = (await preview.boundingBox())!;
  await page.mouse.move(box.x + 40, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + 140, box.y + 20, { steps: 5 });
  await page.mouse.up();
  await settle(page);
  const panned = await view(preview);
  await page.setViewportSize({ width: 1280, height: 800 });
  await settle(page);
  expectSameView(await view(preview), panned);
  await setEditorText(page, spec(name, ["fetch", "check", "publish", "archive"]));
  await expect(preview).toHaveAttribute("data-node-count", "6");
  await expect(preview).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  await settle(page);
  expectSameView(await view(preview), panned);

  // The fit button fits it again, whole.
  await preview.getByRole("button", { name: "Fit View" }).click();
  await expect.poll(async () => (await view(preview)).x).not.toBeCloseTo(panned.x, 0);
});

test("the instance canvas: the fit button and the fit after a resize frame the graph alike", async ({ page }) => {
  const res = await page.request.post("/api/graphs/instances", {
    headers: { authorization: `Bearer ${accessToken()}` },
    data: { spec: "approval-gate", input: "fit alike" },
  });
  const { instanceId } = (await res.json()) as { instanceId: string };
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto(`/instances/${instanceId}`);
  const canvas = page.getByTestId("instance-canvas");
  await expect(canvas).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  await settle(page);

  await canvas.getByRole("button", { name: "Fit View" }).click();
  await settle(page);
  const fitted = await view(canvas);
  // Away and back to the same size: the automatic fit lands exactly where the button did.
  await page.setViewportSize({ width: 1100, height: 760 });
  await expect.poll(async () => (await view(canvas)).zoom).not.toBeCloseTo(fitted.zoom, 3);
  await page.setViewportSize({ width: 1280, height: 800 });
  await settle(page);
  expectSameView(await view(canvas), fitted);
});

test("a graph wider than its canvas says the canvas pans, until the user has moved it; a graph that fits says nothing", async ({ page }) => {
  const wide = `e2e-wide-${uid()}`;
  const small = `e2e-small-${uid()}`;
  // 80 steps: too large for the preview even in its wrapped rows at its least zoom (12 fit it whole).
  await saveSpec(page.request, spec(wide, Array.from({ length: 80 }, (_, i) => `step_${i + 1}`)));
  await saveSpec(page.request, spec(small, ["only"]));
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);

  // The editor's preview shows the large graph from START, the rest out of view.
  await page.goto(`/graphs/${wide}`);
  const preview = page.getByTestId("spec-preview");
  await expect(preview).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  const hint = preview.getByTestId("pan-hint");
  await expect(hint).toHaveText("Drag to pan · scroll to zoom");
  // Beside the zoom controls, inside the canvas.
  const [h, c, controls] = [await hint.boundingBox(), await preview.boundingBox(), await preview.locator(".react-flow__controls").boundingBox()];
  expect(h!.x + h!.width).toBeLessThanOrEqual(controls!.x);
  expect(h!.y + h!.height).toBeLessThanOrEqual(c!.y + c!.height);

  // Readable from START: its names are 11 px or larger on screen (the preview's least zoom is 0.85).
  const nameSizes = () =>
    preview.locator('[data-testid="node-name"] > span').evaluateAll((els) =>
      els.map((el) => (parseFloat(getComputedStyle(el).fontSize) * el.getBoundingClientRect().height) / (el as HTMLElement).offsetHeight),
    );
  expect(Math.min(...(await nameSizes()))).toBeGreaterThanOrEqual(11);
  expect(await inside(preview)).toBeLessThan(82);

  // Dragged by hand: the user found it; the hint goes.
  await page.mouse.move(c!.x + c!.width / 2, c!.y + 60);
  await page.mouse.down();
  await page.mouse.move(c!.x + c!.width / 2 - 120, c!.y + 60, { steps: 5 });
  await page.mouse.up();
  await expect(hint).toHaveCount(0);

  // Every node is reachable: the fit button shows the whole graph (all 82 nodes in the canvas).
  await preview.getByRole("button", { name: "Fit View" }).click();
  await expect.poll(() => inside(preview)).toBe(82);

  // The instance canvas of a run of it says so too.
  const res = await page.request.post("/api/graphs/instances", { headers: { authorization: `Bearer ${accessToken()}` }, data: { spec: wide, input: "x" } });
  const { instanceId } = (await res.json()) as { instanceId: string };
  await page.goto(`/instances/${instanceId}`);
  const canvas = page.getByTestId("instance-canvas");
  await expect(canvas).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  await expect(canvas.getByTestId("pan-hint")).toBeVisible();

  // A small graph fits: no hint.
  await page.goto(`/graphs/${small}`);
  await expect(preview).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  await expect(preview.locator(".react-flow__node")).toHaveCount(3);
  await settle(page);
  await expect(preview.getByTestId("pan-hint")).toHaveCount(0);
});

test("the editor's problem line sits above the preview's canvas, never over a tall graph's top nodes", async ({ page }) => {
  const name = `e2e-tall-${uid()}`;
  const branches = Array.from({ length: 8 }, (_, i) => `branch_${i + 1}`);
  const yaml = [
    `name: ${name}`,
    'version: "1"',
    "nodes:",
    ...branches.map((n) => `  - { name: ${n}, node_type: function, config: { op: identity } }`),
    "edges:",
    ...branches.flatMap((n) => [`  - { from: __start__, to: ${n} }`, `  - { from: ${n}, to: __end__ }`]),
    "",
  ].join("\n");
  await saveSpec(page.request, yaml);
  await signIn(page);
  await page.goto(`/graphs/${name}`);
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  await expect.poll(() => editorText(page)).toContain(`name: ${name}`);
  const preview = page.getByTestId("spec-preview");
  await expect(preview).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  await settle(page);
  const before = await view(preview);
  const canvasBefore = (await preview.boundingBox())!;

  await setEditorText(page, yaml.replace("  - { from: branch_1, to: __end__ }", "  - { from: branch_1, to: sign }"));
  const problem = page.getByTestId("preview-problem");
  await expect(problem).toContainText('unknown node "sign"');
  await expect(problem).toContainText("showing the last valid graph");
  const p = (await problem.boundingBox())!;
  const canvas = (await preview.boundingBox())!;
  expect(p.y + p.height).toBeLessThanOrEqual(canvas.y + 0.5);
  // The top node is where it was, in view, uncovered.
  const tops = await preview.locator(".react-flow__node").evaluateAll((els) => els.map((el) => el.getBoundingClientRect().top));
  expect(Math.min(...tops)).toBeGreaterThan(p.y + p.height);
  // The line keeps the legend's height: the canvas neither moved nor changed size.
  expect(canvas.y).toBeCloseTo(canvasBefore.y, 0);
  expect(canvas.height).toBeCloseTo(canvasBefore.height, 0);
  expectSameView(await view(preview), before);
});

/** The widest examples: approval-gate's END was under the run's side panel (one row, zoom floor 0.8); map-reduce and paced-pipeline were cut at 1024 px. */
const WIDEST = ["approval-gate", "map-reduce", "paced-pipeline"];
const WINDOWS = [
  [1024, 768],
  [1440, 900],
] as const;

/** The smallest node name on the canvas, in screen px. */
const smallestName = (canvas: Locator) =>
  canvas.locator('[data-testid="node-name"] > span').evaluateAll((els) =>
    Math.min(...els.map((el) => (parseFloat(getComputedStyle(el).fontSize) * el.getBoundingClientRect().height) / (el as HTMLElement).offsetHeight)),
  );

test("the widest examples' runs open whole and readable at 1024 and 1440 px, beside the side panel", async ({ page }) => {
  test.setTimeout(240_000); // six pages, on a busy machine
  const ids = new Map<string, string>();
  for (const spec of WIDEST) {
    const res = await page.request.post("/api/graphs/instances", { headers: { authorization: `Bearer ${accessToken()}` }, data: { spec, input: "whole" } });
    ids.set(spec, ((await res.json()) as { instanceId: string }).instanceId);
  }
  await signIn(page);
  for (const [width, height] of WINDOWS) {
    await page.setViewportSize({ width, height });
    for (const spec of WIDEST) {
      await page.goto(`/instances/${ids.get(spec)}`);
      const canvas = page.getByTestId("instance-canvas");
      await expect(canvas).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
      // Wrapped in rows (or columns), every node in the canvas, END included, none under the side panel.
      const count = Number(await canvas.getAttribute("data-node-count"));
      await expect.poll(() => inside(canvas), { message: `${spec} run at ${width} px` }).toBe(count);
      expect((await view(canvas)).zoom).toBeGreaterThanOrEqual(0.8 - 0.005);
      expect(await smallestName(canvas)).toBeGreaterThanOrEqual(10); // 13 px names
      await expect(canvas.getByTestId("pan-hint")).toHaveCount(0);
    }
  }
});

test("the widest examples open whole and readable in the editor's preview at 1024 and 1440 px", async ({ page }) => {
  test.setTimeout(240_000); // six editor pages, on a busy machine
  await signIn(page);
  for (const [width, height] of WINDOWS) {
    await page.setViewportSize({ width, height });
    for (const spec of WIDEST) {
      await page.goto(`/graphs/${spec}`);
      const preview = page.getByTestId("spec-preview");
      await expect(preview).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
      const count = Number(await preview.getAttribute("data-node-count"));
      await expect.poll(() => inside(preview), { message: `${spec} preview at ${width} px` }).toBe(count);
      expect(await smallestName(preview)).toBeGreaterThanOrEqual(11);
    }
  }
});
