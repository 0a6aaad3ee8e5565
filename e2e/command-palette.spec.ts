import { expect, test, type Page } from "@playwright/test";
import { auth, signIn } from "./support/session";

// The header's search (⌘K / Ctrl+K) and its count of runs waiting for a person. Other specs share the
// server, so counts are read, never assumed.
test.describe.configure({ timeout: 120_000 });

async function waitingTotal(page: Page): Promise<number> {
  const res = await page.request.get("/api/graphs/instances?waiting=true&limit=1", { headers: auth() });
  return Number(res.headers()["x-total-count"]);
}

test("the header counts the runs waiting for you, in the badge and the tab's title, and links to them", async ({ page }) => {
  await signIn(page);
  const input = `badge-${Date.now()}`;
  const created = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "approval-gate", input } });
  const { instanceId } = (await created.json()) as { instanceId: string };
  await expect.poll(async () => (await (await page.request.get(`/api/graphs/instances/${instanceId}`, { headers: auth() })).json()).summary.status, { timeout: 30_000 }).toBe("paused");

  await page.goto("/graphs");
  const badge = page.getByTestId("waiting-badge");
  await expect(badge).toHaveText(/^\d+ waiting$/);
  // The badge, the tab's title and the REST total agree (polled together: other specs add and answer runs).
  await expect
    .poll(async () => {
      const shown = Number((await badge.textContent())?.match(/\d+/)?.[0]);
      const title = await page.title();
      return shown >= 1 && title === `(${shown}) Graphs · Modex` && shown === (await waitingTotal(page));
    }, { timeout: 20_000 })
    .toBe(true);
  // At 1024 px the header still holds it all on one line: the count, the search, the engine status, Sign out.
  await page.setViewportSize({ width: 1024, height: 768 });
  for (const control of [badge, page.getByTestId("palette-open"), page.getByTestId("engine-status"), page.getByRole("button", { name: "Sign out" })]) {
    const box = (await control.boundingBox())!;
    expect(box.y + box.height).toBeLessThan(56);
    expect(box.x + box.width).toBeLessThanOrEqual(1024);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });
  // A navigation's new title keeps the count.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents", exact: true }).click();
  // (The Agents page then names the agent it opens: "(N) assistant · Agents · Modex".)
  await expect(page).toHaveTitle(/^\(\d+\) (.+ · )?Agents · Modex$/);

  await badge.click();
  await expect(page).toHaveURL(/\/instances\?status=waiting$/);
  await expect(page.getByRole("link", { name: instanceId })).toBeVisible();

  // Answered, it no longer waits: the count drops (unless another spec's run started waiting meanwhile,
  // hence compared with the REST total rather than with the count before).
  expect((await page.request.post(`/api/graphs/instances/${instanceId}/answer`, { headers: auth(), data: { value: "yes" } })).status()).toBe(200);
  await expect
    .poll(async () => {
      const total = await waitingTotal(page);
      const shown = (await badge.count()) ? Number((await badge.textContent())?.match(/\d+/)?.[0]) : 0;
      const title = await page.title();
      return shown === total && (total === 0 ? !/^\(/.test(title) : title.startsWith(`(${total}) `));
    }, { timeout: 20_000 })
    .toBe(true);
});

test("⌘K / Ctrl+K finds pages, graphs, runs by their input, chats by their messages and agents, and opens one with the keyboard", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const marker = `palette${Date.now()}`;
  const created = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "approval-gate", input: `deploy ${marker}` } });
  const { instanceId } = (await created.json()) as { instanceId: string };
  const chat = (await (await page.request.post("/api/chat", { headers: auth(), data: { title: `Chat about ${marker}` } })).json()) as { sessionId: string };

  await page.goto("/");
  await page.keyboard.press("Control+k");
  const palette = page.getByTestId("palette");
  await expect(palette).toBeVisible();
  const box = palette.getByRole("combobox", { name: "Search" });
  await expect(box).toBeFocused();
  // Without a query: every page, the first one active.
  await expect(palette.getByRole("group", { name: "Pages" }).getByRole("option")).toHaveCount(12);
  await expect(palette.getByRole("option", { selected: true })).toHaveText("Home");

  // A run by a word of its input, a chat by its title.
  await box.fill(marker);
  await expect(palette.getByRole("group", { name: "Runs" }).getByRole("option")).toHaveText([new RegExp(`${instanceId}.*approval-gate`)]);
  await expect(palette.getByRole("group", { name: "Chats" }).getByRole("option")).toHaveText([new RegExp(`Chat about ${marker}`)]);
  await palette.screenshot({ path: "e2e/screenshots/command-palette.png" });

  // A graph by its name; an agent by its name; a page by a word for it.
  await box.fill("approval-g");
  await expect(palette.getByRole("group", { name: "Graphs" }).getByRole("option").first()).toContainText("approval-gate");
  // Its runs too: the run search reads ids and inputs, so a graph's name leads to its filtered list.
  await expect(palette.getByRole("group", { name: "Runs" }).getByRole("option").first()).toContainText("Runs of approval-gate");
  await box.fill("zz-nothing-matches-this");
  await expect(palette).toContainText("Nothing matches “zz-nothing-matches-this”.");
  await box.fill("cron");
  await expect(palette.getByRole("option", { selected: true })).toHaveText("Triggers");

  // The keyboard: down to the run, Enter opens it.
  await box.fill(marker);
  await expect(palette.getByRole("group", { name: "Runs" }).getByRole("option")).toHaveCount(1);
  await box.press("ArrowDown");
  await expect(palette.getByRole("option", { selected: true })).toContainText(`Chat about ${marker}`);
  await box.press("ArrowUp");
  await expect(palette.getByRole("option", { selected: true })).toContainText(instanceId);
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/instances/${instanceId}$`));
  await expect(palette).toBeHidden();

  // The header's button opens it too; Escape closes it; a click on a chat opens the chat.
  await page.getByTestId("palette-open").click();
  await expect(palette).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(palette).toBeHidden();
  await page.getByTestId("palette-open").click();
  await palette.getByRole("combobox").fill(marker);
  await palette.getByRole("group", { name: "Chats" }).getByRole("option").click();
  await expect(page).toHaveURL(new RegExp(`/chat\\?session=${chat.sessionId}$`));
  await page.getByTestId("palette-open").click();
  await palette.getByRole("combobox").fill("approval-gate");
  await palette.getByRole("option", { name: /Runs of approval-gate/ }).click();
  await expect(page).toHaveURL(/\/instances\?graph=approval-gate$/);
  await expect(page.getByRole("link", { name: instanceId })).toBeVisible();

  // In the YAML editor Ctrl+K stays Monaco's (its chords start with it).
  await page.goto("/graphs/approval-gate");
  const editor = page.locator(".monaco-editor textarea");
  await editor.waitFor({ timeout: 30_000 });
  await editor.focus();
  await page.keyboard.press("Control+k");
  await page.keyboard.press("Escape");
  await expect(palette).toBeHidden();
  expect(pageErrors).toEqual([]);
});
