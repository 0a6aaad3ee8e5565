import { expect, type Page, test } from "@playwright/test";
import { auth, signIn } from "./support/session";

/** The theme choice (System / Light / Dark, kept in the browser, applied before the first paint) and the `?` shortcuts overlay. */
test.describe.configure({ timeout: 120_000 });

/** Whether the body is drawn light (its background's red channel, as the browser paints it). */
async function bodyIsLight(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const c = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
    c.fillStyle = getComputedStyle(document.body).backgroundColor;
    c.fillRect(0, 0, 1, 1);
    return c.getImageData(0, 0, 1, 1).data[0] > 128;
  });
}

async function editorIsLight(page: Page): Promise<boolean> {
  return page.locator(".monaco-editor-background").first().evaluate((el) => {
    const c = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
    c.fillStyle = getComputedStyle(el).backgroundColor;
    c.fillRect(0, 0, 1, 1);
    return c.getImageData(0, 0, 1, 1).data[0] > 128;
  });
}

async function chooseInHeader(page: Page, label: "System" | "Light" | "Dark") {
  await page.getByTestId("theme-button").click();
  await page.getByRole("menu", { name: "Theme" }).getByRole("menuitemradio", { name: label }).click();
  await expect(page.getByTestId("theme-button")).toHaveAccessibleName(`Theme: ${label}`);
}

test("Dark chosen over a light system stays dark across reloads from the first frame, editors and canvases included; System follows the system again", async ({ browser }) => {
  const context = await browser.newContext({ colorScheme: "light", viewport: { width: 1440, height: 900 } });
  // The theme <html> carries when the body starts: the head's inline script must have set it by then.
  await context.addInitScript(() => {
    const w = window as unknown as { themeAtBody?: string | null };
    new MutationObserver((_, observer) => {
      if (!document.body) return;
      w.themeAtBody = document.documentElement.getAttribute("data-theme");
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  const refused: string[] = [];
  page.on("console", (m) => /Content Security Policy|Refused to/i.test(m.text()) && refused.push(m.text()));
  await signIn(page);

  // The served page carries the script with this response's CSP nonce (no 'unsafe-inline' needed).
  const res = await page.request.get("/graphs");
  const nonce = /'nonce-([^']+)'/.exec(res.headers()["content-security-policy"] ?? "")?.[1];
  expect(nonce).toBeTruthy();
  expect(/script-src [^;]*/.exec(res.headers()["content-security-policy"] ?? "")?.[0]).not.toContain("unsafe-inline");
  expect(await res.text()).toContain(`<script nonce="${nonce}">(function () {`);

  await page.goto("/graphs");
  await expect(page.getByTestId("spec-row").first()).toBeVisible();
  await expect(page.getByTestId("theme-button")).toHaveAccessibleName("Theme: System");
  expect(await bodyIsLight(page)).toBe(true);

  await chooseInHeader(page, "Dark");
  expect(await bodyIsLight(page)).toBe(false);
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await page.evaluate(() => localStorage.getItem("modex-theme"))).toBe("dark");
  await page.screenshot({ path: "e2e/screenshots/theme-choice-dark-graphs-1440.png" });

  // Reloaded (and on another page): dark from the first frame, over the light system.
  await page.reload();
  expect(await page.evaluate(() => (window as unknown as { themeAtBody?: string }).themeAtBody)).toBe("dark");
  expect(await bodyIsLight(page)).toBe(false);
  await page.goto("/graphs/map-reduce");
  expect(await page.evaluate(() => (window as unknown as { themeAtBody?: string }).themeAtBody)).toBe("dark");
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("spec-preview")).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  expect(await editorIsLight(page)).toBe(false);
  await expect(page.locator(".react-flow").first()).toHaveClass(/\bdark\b/);
  await page.screenshot({ path: "e2e/screenshots/theme-choice-dark-editor-1440.png" });

  // From the command palette, live: the editor and the canvas follow without a reload.
  await page.keyboard.press("Control+k");
  await page.getByRole("combobox", { name: "Search" }).fill("theme: light");
  await expect(page.getByRole("option", { selected: true })).toHaveText("Theme: Light");
  await page.keyboard.press("Enter");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await expect.poll(() => editorIsLight(page)).toBe(true);
  await expect(page.locator(".react-flow").first()).toHaveClass(/\blight\b/);
  expect(await bodyIsLight(page)).toBe(true);
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.screenshot({ path: "e2e/screenshots/theme-choice-light-editor-1024.png" });
  await page.setViewportSize({ width: 1440, height: 900 });

  // Back to System: it follows the (emulated) system preference, live and after a reload.
  await chooseInHeader(page, "System");
  expect(await page.evaluate(() => localStorage.getItem("modex-theme"))).toBeNull();
  expect(await bodyIsLight(page)).toBe(true);
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect.poll(() => editorIsLight(page)).toBe(false);
  await page.reload();
  expect(await page.evaluate(() => (window as unknown as { themeAtBody?: string }).themeAtBody)).toBe("dark");
  await page.emulateMedia({ colorScheme: "light" });
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");

  // Screenshots of the header, its menu and a page in both themes at 1024 and 1440 px.
  for (const theme of ["Light", "Dark"] as const) {
    await page.goto("/graphs");
    await chooseInHeader(page, theme);
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await page.getByTestId("theme-button").click();
      await expect(page.getByRole("menu", { name: "Theme" })).toBeVisible();
      // The menu opens inside the window, under its button.
      const menu = (await page.getByRole("menu", { name: "Theme" }).boundingBox())!;
      expect(menu.x + menu.width).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `e2e/screenshots/theme-menu-${theme.toLowerCase()}-${width}.png` });
      await page.keyboard.press("Escape");
      await expect(page.getByRole("menu", { name: "Theme" })).toHaveCount(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    }
  }
  await chooseInHeader(page, "System");
  expect(refused).toEqual([]);
  await context.close();
});

test("? opens the keyboard shortcuts (also from the palette), Esc closes them, and a ? typed in the chat stays text", async ({ page }) => {
  await signIn(page);
  await page.goto("/graphs");
  await expect(page.getByTestId("spec-row").first()).toBeVisible();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await page.keyboard.press("?");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("region", { name: "Anywhere" })).toContainText("Search pages, graphs, runs, chats and agents");
  await expect(dialog.getByRole("region", { name: "Graph and agent editors" })).toContainText("Save");
  await expect(dialog.getByRole("region", { name: "Chat and answer cards" })).toContainText("New line");
  await expect(dialog.getByRole("region", { name: "Tab rows" })).toContainText("First or last tab");
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: `e2e/screenshots/shortcuts-${scheme}-${width}.png` });
    }
  }
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  // A run whose input says "keyboard": the server's search lists it above the actions a moment after
  // typing, and the highlight stays on what was highlighted, so Enter opens what the user saw.
  const run = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "approval-gate", input: `keyboard ${Date.now()}` } });
  expect(run.status()).toBe(201);
  await page.keyboard.press("Control+k");
  await page.getByRole("combobox", { name: "Search" }).fill("keyboard");
  await expect(page.getByRole("option", { selected: true })).toHaveText("Keyboard shortcuts");
  await expect(page.getByTestId("palette").getByRole("group", { name: "Runs" })).toBeVisible();
  await expect(page.getByRole("option", { selected: true })).toHaveText("Keyboard shortcuts");
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId("palette")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  await page.goto("/chat");
  const message = page.getByRole("textbox", { name: "Message" });
  await message.click();
  await page.keyboard.type("why?");
  await expect(message).toHaveValue("why?");
  await expect(dialog).toBeHidden();
});
