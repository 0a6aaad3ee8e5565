import { expect, type Page, test } from "@playwright/test";
import { modexctl } from "./support/modexctl";
import { auth, saveSpec, signIn } from "./support/session";
import { create, quickSpec, slowSpec } from "./support/runs";

test.describe.configure({ timeout: 180_000 });

test("modexctl deletes and archives several ids, and deletes a filter's matches only with --yes", async ({ page, baseURL }) => {
  await signIn(page);
  const tag = `bulk-cli-${Date.now().toString(36)}`;
  await saveSpec(page.request, quickSpec(`${tag}-ok`));
  await saveSpec(page.request, slowSpec(`${tag}-slow`));
  const ok = await Promise.all(Array.from({ length: 4 }, (_, i) => create(page.request, `${tag}-ok`, i)));
  const slow = await create(page.request, `${tag}-slow`, null);
  await expect.poll(async () => (await page.request.get(`/api/graphs/instances?graph=${tag}-ok&status=completed`, { headers: auth() })).headers()["x-total-count"]).toBe("4");

  const archived = await modexctl(baseURL!, "archive", ok[0], ok[1]);
  expect(archived.code, archived.stderr).toBe(0);
  expect(archived.stdout).toContain("2 of 2 instances archived");
  expect((await modexctl(baseURL!, "archive", ok[0], ok[1], "--undo")).stdout).toContain("2 of 2 instances no longer archived");

  const mixed = await modexctl(baseURL!, "delete", ok[0], slow);
  expect(mixed.code).toBe(1);
  expect(mixed.stdout).toContain("1 of 2 instances deleted");
  expect(mixed.stdout).toContain(`left ${slow}: instance ${slow} is running`);

  const preview = await modexctl(baseURL!, "delete", "--status", "completed", "--graph", `${tag}-ok`);
  expect(preview.code).toBe(1);
  expect(preview.stdout).toContain("would delete 3 instances");
  expect(preview.stdout).toContain(ok[3]);
  expect((await page.request.get(`/api/graphs/instances?graph=${tag}-ok`, { headers: auth() })).headers()["x-total-count"]).toBe("3");
  expect((await modexctl(baseURL!, "delete", "--graph", `${tag}-ok`, "--older-than", "1d", "--yes")).stdout).toContain("0 of 0 instances deleted");
  const done = await modexctl(baseURL!, "delete", "--status", "completed", "--graph", `${tag}-ok`, "--yes");
  expect(done.code, done.stderr).toBe(0);
  expect(done.stdout).toContain("3 of 3 instances deleted");
  expect((await page.request.get(`/api/graphs/instances?graph=${tag}-ok`, { headers: auth() })).headers()["x-total-count"]).toBe("0");
  expect((await modexctl(baseURL!, "delete", "--older-than", "soon")).stderr).toContain("--older-than takes an age");
  await page.request.post(`/api/graphs/instances/${slow}/stop`, { headers: auth() });
});

const row = (page: Page, id: string) => page.locator(`[data-testid="instance-row"][data-instance="${id}"]`);
const tick = (page: Page, id: string) => page.getByLabel(`Select ${id}`, { exact: true }).check();
/** The box writes the URL and the list follows it, so it is ticked a moment after the click. */
async function archivedOnly(page: Page, on: boolean): Promise<void> {
  await page.getByLabel("Archived only").click();
  await expect(page.getByLabel("Archived only")).toBeChecked({ checked: on });
}

test("the Instances list: select runs, archive and unarchive them, delete with a confirmation; a running run is left and reported", async ({ page }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signIn(page);
  const tag = `bulk-ui-${Date.now().toString(36)}`;
  await saveSpec(page.request, quickSpec(`${tag}-ok`));
  await saveSpec(page.request, slowSpec(`${tag}-slow`));
  const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map((i) => create(page.request, `${tag}-ok`, `${tag} ${i}`)));
  const slow = await create(page.request, `${tag}-slow`, `${tag} slow`);
  await expect.poll(async () => (await page.request.get(`/api/graphs/instances?graph=${tag}-ok&status=completed`, { headers: auth() })).headers()["x-total-count"]).toBe("4");

  await page.goto(`/instances?q=${tag}`);
  await expect(page.getByTestId("instance-row")).toHaveCount(5, { timeout: 15_000 });
  await expect(page.getByTestId("bulk-bar")).toHaveCount(0);
  await tick(page, a);
  await tick(page, b);
  const bar = page.getByTestId("bulk-bar");
  await expect(bar.getByTestId("bulk-count")).toHaveText("2 selected");
  // Some of the listed rows: the header's box is neither ticked nor clear.
  const header = page.getByLabel("Select the listed runs");
  expect(await header.evaluate((el: HTMLInputElement) => el.indeterminate)).toBe(true);
  await expect(bar.getByRole("button", { name: "Unarchive" })).toHaveCount(0);
  await expect(bar.getByText(/Select all .* matching/)).toHaveCount(0); // every match is listed already
  await page.screenshot({ path: "e2e/screenshots/instances-bulk-bar.png" });

  // Archive: gone from the default list, found under Archived only; unarchive brings them back.
  await bar.getByRole("button", { name: "Archive" }).click();
  await expect(page.getByTestId("bulk-outcome")).toHaveText(/^2 runs archived\./);
  await expect(page.getByTestId("instance-row")).toHaveCount(3);
  await expect(row(page, a)).toHaveCount(0);
  await expect(header).not.toBeChecked();
  await archivedOnly(page, true);
  await expect(page.getByTestId("instance-row")).toHaveCount(2);
  await header.check();
  await expect(bar.getByTestId("bulk-count")).toHaveText("2 selected");
  await expect(bar.getByRole("button", { name: "Archive", exact: true })).toHaveCount(0);
  await bar.getByRole("button", { name: "Unarchive" }).click();
  await expect(page.getByTestId("bulk-outcome")).toHaveText(/^2 runs unarchived\./);
  await expect(page.getByTestId("empty-state")).toContainText("No runs match this filter");
  await archivedOnly(page, false);
  await expect(page.getByTestId("instance-row")).toHaveCount(5);

  // Clear drops the selection; another filter starts with none.
  await tick(page, d);
  await bar.getByRole("button", { name: "Clear" }).click();
  await expect(bar).toHaveCount(0);
  await expect(page.getByLabel(`Select ${d}`, { exact: true })).not.toBeChecked();

  // Delete asks first; Cancel keeps the runs and the selection.
  await tick(page, c);
  await tick(page, slow);
  await bar.getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete 2 runs?" });
  await expect(dialog).toContainText("This cannot be undone");
  await expect(dialog).toContainText("A running run is left as it is");
  await page.screenshot({ path: "e2e/screenshots/instances-bulk-confirm.png" });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(bar.getByTestId("bulk-count")).toHaveText("2 selected");
  await bar.getByRole("button", { name: "Delete…" }).click();
  await dialog.getByTestId("confirm-action").click();
  // The running one is left, and the list says so.
  await expect(page.getByTestId("bulk-outcome")).toContainText("1 run deleted. 1 running run was left (stop a run to delete it).");
  await expect(row(page, c)).toHaveCount(0);
  await expect(row(page, slow)).toBeVisible();
  await expect(bar).toHaveCount(0);
  expect((await page.request.get(`/api/graphs/instances/${c}`, { headers: auth() })).status()).toBe(404);
  expect((await page.request.get(`/api/graphs/instances/${slow}`, { headers: auth() })).status()).toBe(200);
  await page.getByTestId("bulk-outcome").getByRole("button", { name: "Dismiss" }).click();
  await expect(page.getByTestId("bulk-outcome")).toHaveCount(0);
  expect(errors).toEqual([]);
  await page.request.post(`/api/graphs/instances/${slow}/stop`, { headers: auth() });
});

test("the Instances list: select all runs matching the filter, beyond the loaded page, and act on them all (also at 1024 px)", async ({ page }) => {
  await signIn(page);
  const tag = `bulk-all-${Date.now().toString(36)}`;
  await saveSpec(page.request, quickSpec(tag));
  for (let i = 0; i < 55; i += 11) await Promise.all(Array.from({ length: 11 }, (_, k) => create(page.request, tag, `${tag} ${i + k}`)));
  await expect.poll(async () => (await page.request.get(`/api/graphs/instances?graph=${tag}&status=completed`, { headers: auth() })).headers()["x-total-count"]).toBe("55");

  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto(`/instances?q=${tag}`);
  await expect(page.getByTestId("instance-total")).toHaveText("50 of 55 runs", { timeout: 15_000 });
  await page.getByLabel("Select the listed runs").check();
  const bar = page.getByTestId("bulk-bar");
  await expect(bar.getByTestId("bulk-count")).toHaveText("50 selected");
  await bar.getByRole("button", { name: "Select all 55 matching" }).click();
  await expect(bar.getByTestId("bulk-count")).toHaveText("All 55 runs matching selected");
  // The bar stays in the window, over the list, at 1024 px.
  const box = (await bar.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(1024);
  expect(box.y + box.height).toBeLessThanOrEqual(768);
  await page.screenshot({ path: "e2e/screenshots/instances-bulk-all-1024.png" });
  // Unticking one row leaves the listed rows but that one.
  const first = (await page.getByTestId("instance-row").first().getAttribute("data-instance"))!;
  await page.getByLabel(`Select ${first}`, { exact: true }).uncheck();
  await expect(bar.getByTestId("bulk-count")).toHaveText("49 selected");
  await page.getByLabel("Select the listed runs").check();
  await bar.getByRole("button", { name: "Select all 55 matching" }).click();

  // By the filter: the five not loaded are archived too.
  await bar.getByRole("button", { name: "Archive" }).click();
  await expect(page.getByTestId("bulk-outcome")).toHaveText(/^55 runs archived\./);
  await expect(page.getByTestId("empty-state")).toContainText("No runs match this filter");
  expect((await page.request.get(`/api/graphs/instances?graph=${tag}&archived=only`, { headers: auth() })).headers()["x-total-count"]).toBe("55");

  await archivedOnly(page, true);
  await expect(page.getByTestId("instance-total")).toHaveText("50 of 55 runs");
  await page.getByLabel("Select the listed runs").check();
  await bar.getByRole("button", { name: "Select all 55 matching" }).click();
  await bar.getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete 55 runs?" });
  await expect(dialog).toContainText("Every run this filter matches (55 runs now)");
  await dialog.getByTestId("confirm-action").click();
  await expect(page.getByTestId("bulk-outcome")).toHaveText(/^55 runs deleted\./);
  expect((await page.request.get(`/api/graphs/instances?graph=${tag}&archived=include`, { headers: auth() })).headers()["x-total-count"]).toBe("0");
});
