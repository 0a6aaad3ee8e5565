import { expect, type Locator, type Page, test } from "@playwright/test";
import { signIn } from "./support/session";

/**
 * The split between the YAML and the preview (components/graphs/use-editor-split.ts): dragged or moved
 * with the arrow keys, it gives the preview more room, the graph is fitted again into it, and the
 * browser remembers it for the next graph; a double click puts it back.
 */
test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1024, height: 768 } });

const zoomOf = (canvas: Locator) => canvas.locator(".react-flow__viewport").evaluate((el) => new DOMMatrixReadOnly(getComputedStyle(el).transform).a);
const widthOf = async (el: Locator) => (await el.boundingBox())!.width;

async function open(page: Page, name: string): Promise<Locator> {
  await page.goto(`/graphs/${name}`);
  const preview = page.getByTestId("spec-preview");
  await expect(preview).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  return preview;
}

test("dragging the split widens the preview, fits its graph again and is remembered; the keys move it, a double click resets it", async ({ page }) => {
  await signIn(page);
  const preview = await open(page, "map-reduce");
  const handle = page.getByRole("separator", { name: "Resize the YAML and the preview" });
  await expect(handle).toHaveAttribute("aria-valuenow", "44");
  const yaml = page.getByRole("region", { name: "YAML" });
  const before = { preview: await widthOf(preview), yaml: await widthOf(yaml), zoom: await zoomOf(preview) };

  // Dragged 100 px to the left: the preview is 100 px wider and the graph is fitted again, larger.
  const h = (await handle.boundingBox())!;
  await page.mouse.move(h.x + h.width / 2, h.y + 200);
  await page.mouse.down();
  await page.mouse.move(h.x + h.width / 2 - 100, h.y + 200, { steps: 6 });
  await page.mouse.up();
  await expect.poll(() => widthOf(preview)).toBeCloseTo(before.preview + 100, -1);
  expect(await widthOf(yaml)).toBeCloseTo(before.yaml - 100, -1);
  await expect.poll(() => zoomOf(preview)).toBeGreaterThan(before.zoom + 0.05);
  // Every node is still inside the preview.
  const c = (await preview.boundingBox())!;
  const boxes = await preview.locator(".react-flow__node").evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect));
  expect(boxes).toHaveLength(7);
  for (const b of boxes) expect(b.left >= c.x && b.right <= c.x + c.width && b.top >= c.y && b.bottom <= c.y + c.height).toBe(true);
  await page.screenshot({ path: "e2e/screenshots/editor-split-1024.png" });

  // Remembered: another graph opens with the same split.
  const widened = await widthOf(preview);
  await open(page, "research-team");
  await expect.poll(() => widthOf(preview)).toBeCloseTo(widened, -1);

  // The keyboard: an arrow key moves it by 2 % of the width.
  await handle.focus();
  await page.keyboard.press("ArrowRight");
  await expect.poll(() => widthOf(preview)).toBeCloseTo(widened - 0.02 * (await widthOf(page.locator("main"))), -1);

  // Never narrower than 320 px a side, however far it is dragged.
  const h2 = (await handle.boundingBox())!;
  await page.mouse.move(h2.x + h2.width / 2, h2.y + 200);
  await page.mouse.down();
  await page.mouse.move(5, h2.y + 200, { steps: 6 });
  await page.mouse.up();
  await expect.poll(() => widthOf(yaml)).toBeCloseTo(320, -1);

  // A double click puts it back.
  await handle.dblclick();
  await expect(handle).toHaveAttribute("aria-valuenow", "44");
  await expect.poll(() => widthOf(preview)).toBeCloseTo(before.preview, -1);
});
