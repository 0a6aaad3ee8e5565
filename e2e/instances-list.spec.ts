import { expect, type Page, test } from "@playwright/test";
import { modexctl } from "./support/modexctl";
import { auth, saveSpec, signIn } from "./support/session";
import { create, quickSpec, slowSpec } from "./support/runs";

test.describe.configure({ timeout: 180_000 });

const gateSpec = (name: string) => `name: ${name}
version: "1"
nodes:
  - { name: gate, node_type: human_input, config: { prompt: "Ship it?" } }
edges:
  - { from: __start__, to: gate }
  - { from: gate, to: __end__ }
`;

async function shoot(page: Page, name: string) {
  for (const [w, h] of [
    [1280, 800],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: `e2e/screenshots/${name}-${w}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("the Instances list pages, filters and counts on the server; a graph's 'N total' lands on its runs", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const tag = Date.now().toString(36);
  const many = `e2e-many-${tag}`;
  const gate = `e2e-gate-${tag}`;
  await saveSpec(page.request, quickSpec(many));
  await saveSpec(page.request, gateSpec(gate));
  // 230 runs of one graph: more than a page, more than the old list's 200 newest.
  const ids: string[] = [];
  for (let i = 0; i < 230; i += 10) {
    ids.push(...(await Promise.all(Array.from({ length: 10 }, (_, k) => create(page.request, many, `item ${i + k}`)))));
  }
  const needle = `needle-${tag}`;
  const waiting = await create(page.request, gate, needle);
  // Paused too, but before a breakpoint: it waits for nobody's answer.
  const held = await page.request.post("/api/graphs/instances", { data: { spec: gate, input: "held", breakpoints: ["gate"] }, headers: auth() });
  expect(held.status()).toBe(201);
  const paused = ((await held.json()) as { instanceId: string }).instanceId;

  // REST: a page of rows, its totals in headers.
  const rest = await page.request.get(`/api/graphs/instances?graph=${many}&limit=20`, { headers: auth() });
  expect(rest.status()).toBe(200);
  expect(rest.headers()["x-total-count"]).toBe("230");
  expect(rest.headers()["x-next-cursor"]).toBeTruthy();
  expect(((await rest.json()) as unknown[]).length).toBe(20);
  // A REST create answers once the instance is committed; its run (here: up to its human-input node) follows.
  const waitingRows = async () => {
    const res = await page.request.get(`/api/graphs/instances?waiting=true&q=${needle}`, { headers: auth() });
    return ((await res.json()) as { instanceId: string; waiting: boolean }[]).map((r) => [r.instanceId, r.waiting]);
  };
  await expect.poll(waitingRows, { timeout: 15_000 }).toEqual([[waiting, true]]);

  // The graph row's "N total" link lands on a list of its runs.
  await page.goto("/graphs");
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: many, exact: true }) });
  await expect(row.getByRole("link", { name: /230 total/ })).toBeVisible({ timeout: 15_000 });
  await row.getByRole("link", { name: /230 total/ }).click();
  await expect(page).toHaveURL(new RegExp(`/instances\\?graph=${many}$`));
  await expect(page.getByTestId("instance-row")).toHaveCount(50, { timeout: 15_000 });
  await expect(page.getByTestId("instance-total")).toHaveText("50 of 230 runs");
  await expect(page.locator('[data-tab="completed"]')).toContainText("230");
  await expect(page.getByTestId("instance-duration").first()).toHaveText(/\d+ ms|\d+\.\d s/);
  await shoot(page, "instances-list");
  // Cursor paging: every run is reachable.
  for (let shown = 50; shown < 230; shown += 50) {
    await page.getByRole("button", { name: "Show 50 more" }).click();
    await expect(page.getByTestId("instance-row")).toHaveCount(Math.min(230, shown + 50));
  }
  await expect(page.getByTestId("instance-total")).toHaveText("230 of 230 runs");
  const listed = await page.getByTestId("instance-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-instance")));
  expect(new Set(listed)).toEqual(new Set(ids));

  // Text search over the input, on the server; the waiting run has its own filter and label.
  await page.goto("/instances");
  await page.getByLabel("Search instances").fill(needle);
  await expect(page).toHaveURL(new RegExp(`q=${needle}`));
  await expect(page.getByTestId("instance-row")).toHaveCount(1);
  await expect(page.getByTestId("instance-row").getByTestId("status-badge")).toHaveText("waiting for input");
  await page.getByLabel("Search instances").fill("");
  await page.locator('[data-tab="waiting"]').click();
  await expect(page).toHaveURL(/status=waiting/);
  await expect(page.locator(`[data-testid="instance-row"][data-instance="${waiting}"]`)).toBeVisible();
  await expect(page.getByTestId("instance-row").getByTestId("status-badge").first()).toHaveText("waiting for input");
  await shoot(page, "instances-waiting");
  // Each tab's count is what it lists: the run waiting for input is under its own tab, not under Paused too.
  await page.goto(`/instances?graph=${gate}`);
  const count = (tab: string) => page.locator(`[data-tab="${tab}"] span`);
  await expect(count("all")).toHaveText("2", { timeout: 15_000 });
  await expect(count("waiting")).toHaveText("1");
  await expect(count("paused")).toHaveText("1");
  await page.locator('[data-tab="paused"]').click();
  await expect(page).toHaveURL(/status=paused/);
  await expect(page.getByTestId("instance-row")).toHaveCount(1);
  await expect(page.locator(`[data-testid="instance-row"][data-instance="${paused}"]`).getByTestId("status-badge")).toHaveText("paused");
  await expect(page.getByTestId("instance-total")).toHaveText("1 of 1 run");
  await page.locator('[data-tab="waiting"]').click();
  await expect(page.getByTestId("instance-row")).toHaveCount(1);
  await expect(page.locator(`[data-testid="instance-row"][data-instance="${waiting}"]`)).toBeVisible();
  // Two filters changed at once, without waiting in between: the second builds on the first.
  await page.locator('[data-tab="paused"]').click();
  await page.getByRole("combobox", { name: "Started" }).selectOption("1h");
  await expect(page).toHaveURL(new RegExp(`\\?graph=${gate}&status=paused&since=1h$`));
  await expect(page.locator('[data-tab="paused"]')).toHaveAttribute("aria-selected", "true");
  await page.goto(`/instances?graph=${gate}&status=waiting`);
  await expect(page.getByTestId("instance-row")).toHaveCount(1);
  // The list lines up with the header at a wide window (both max-w-6xl).
  await page.setViewportSize({ width: 1440, height: 900 });
  const headerBox = (await page.locator("header > div").boundingBox())!;
  const mainBox = (await page.locator("main").boundingBox())!;
  expect(mainBox.x).toBeCloseTo(headerBox.x, 0);
  expect(mainBox.width).toBeCloseTo(headerBox.width, 0);
  await page.screenshot({ path: "e2e/screenshots/instances-paused-1440.png" });
  await page.setViewportSize({ width: 1280, height: 800 });
  // …and its page says the same as the list.
  await page.locator(`[data-testid="instance-row"][data-instance="${waiting}"]`).getByRole("link").click();
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "paused", { timeout: 30_000 });
  await expect(page.getByTestId("instance-view").getByTestId("status-badge").first()).toHaveText("waiting for input");

  // An id search finds it too, and a time range that excludes it finds nothing.
  await page.goto(`/instances?q=${waiting.slice(-7)}`);
  await expect(page.locator(`[data-testid="instance-row"][data-instance="${waiting}"]`)).toBeVisible();
  await page.goto(`/instances?graph=${many}&since=1h`);
  await expect(page.getByTestId("instance-total")).toHaveText("50 of 230 runs");
  const old = await page.request.get(`/api/graphs/instances?graph=${many}&to=2000-01-01T00:00:00Z`, { headers: auth() });
  expect(old.headers()["x-total-count"]).toBe("0");
  expect(pageErrors).toEqual([]);
});

test("archive and delete instances (UI with confirmation, REST, modexctl); a running one cannot be deleted", async ({ page, baseURL }) => {
  await signIn(page);
  const tag = Date.now().toString(36);
  const name = `e2e-tidy-${tag}`;
  const slow = `e2e-tidy-slow-${tag}`;
  await saveSpec(page.request, quickSpec(name));
  await saveSpec(page.request, slowSpec(slow, 20_000));
  const [a, b, c] = [await create(page.request, name, "a"), await create(page.request, name, "b"), await create(page.request, name, "c")];
  const running = await create(page.request, slow, "zzz");

  await page.goto(`/instances?graph=${name}`);
  await expect(page.getByTestId("instance-row")).toHaveCount(3, { timeout: 15_000 });
  // Archive from the list: hidden by default, findable under Archived.
  const rowA = page.locator(`[data-testid="instance-row"][data-instance="${a}"]`);
  await rowA.hover();
  await rowA.getByRole("button", { name: "Archive" }).click();
  await expect(page.getByTestId("instance-row")).toHaveCount(2);
  // The checkbox writes the URL; the list follows it.
  await page.getByLabel("Archived only").click();
  await expect(page).toHaveURL(/archived=only/);
  await expect(page.getByLabel("Archived only")).toBeChecked();
  await expect(page.getByTestId("instance-row")).toHaveCount(1);
  await expect(rowA).toContainText("archived");
  await page.getByLabel("Archived only").click();
  await expect(page).not.toHaveURL(/archived=only/);

  // Delete asks first, says it cannot be undone; Cancel keeps it.
  const rowB = page.locator(`[data-testid="instance-row"][data-instance="${b}"]`);
  await rowB.hover();
  await rowB.getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this instance?" });
  await expect(dialog).toContainText("This cannot be undone");
  await shoot(page, "instance-delete-confirm");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(rowB).toBeVisible();
  await rowB.hover();
  await rowB.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("dialog", { name: "Delete this instance?" }).getByTestId("confirm-action").click();
  await expect(rowB).toHaveCount(0);
  expect((await page.request.get(`/api/graphs/instances/${b}`, { headers: auth() })).status()).toBe(404);

  // A running instance: the button says why it is disabled, REST answers 409, modexctl exits 1.
  await page.goto(`/instances?graph=${slow}`);
  const rowRunning = page.locator(`[data-testid="instance-row"][data-instance="${running}"]`);
  await rowRunning.hover();
  await expect(rowRunning.getByRole("button", { name: "Delete…" })).toBeDisabled();
  await expect(rowRunning.getByRole("button", { name: "Delete…" })).toHaveAttribute("title", /cannot be deleted/);
  const refused = await page.request.delete(`/api/graphs/instances/${running}`, { headers: auth() });
  expect(refused.status()).toBe(409);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/running instance cannot be deleted/);
  const cliRefused = await modexctl(baseURL!, "delete", running);
  expect(cliRefused.code).toBe(1);
  expect(cliRefused.stderr + cliRefused.stdout).toMatch(/cannot be deleted/);

  // modexctl archive / archive --undo / delete.
  expect((await modexctl(baseURL!, "archive", c)).stdout).toContain(`instance ${c} archived`);
  const hidden = await page.request.get(`/api/graphs/instances?graph=${name}`, { headers: auth() });
  expect(((await hidden.json()) as { instanceId: string }[]).map((r) => r.instanceId)).not.toContain(c);
  expect((await modexctl(baseURL!, "archive", c, "--undo")).stdout).toContain("no longer archived");
  const deleted = await modexctl(baseURL!, "delete", c, "--json");
  expect(deleted.code).toBe(0);
  expect(JSON.parse(deleted.stdout)).toEqual({ instanceId: c, deleted: true });

  // On the instance page: archive, then delete, which goes back to the list.
  await page.goto(`/instances/${a}`);
  await expect(page.getByTestId("instance-summary")).toContainText("archived", { timeout: 30_000 });
  await page.getByTestId("instance-summary").getByRole("button", { name: "Unarchive" }).click();
  await expect(page.getByTestId("instance-summary")).not.toContainText("archived");
  await page.getByTestId("instance-summary").getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("dialog", { name: "Delete this instance?" }).getByTestId("confirm-action").click();
  await expect(page).toHaveURL(/\/instances$/);
  await page.request.post(`/api/graphs/instances/${running}/stop`, { headers: auth() });
});

test("archive and delete specs from the Graphs list; one with runs cannot be deleted", async ({ page, baseURL }) => {
  await signIn(page);
  const tag = Date.now().toString(36);
  const empty = `e2e-unused-${tag}`;
  const used = `e2e-used-${tag}`;
  await saveSpec(page.request, quickSpec(empty));
  await saveSpec(page.request, quickSpec(used));
  await create(page.request, used, 1);

  await page.goto("/graphs");
  const rowOf = (n: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name: n, exact: true }) });
  await expect(rowOf(used)).toBeVisible({ timeout: 15_000 });
  await rowOf(used).hover();
  await expect(rowOf(used).getByRole("button", { name: `Delete ${used}` })).toBeDisabled();
  await expect(rowOf(used).getByRole("button", { name: `Delete ${used}` })).toHaveAttribute("title", /1 instance/);
  expect((await page.request.delete(`/api/graphs/specs/${used}`, { headers: auth() })).status()).toBe(409);

  await rowOf(used).getByRole("button", { name: `Archive ${used}` }).click();
  await expect(rowOf(used)).toHaveCount(0);
  await page.getByLabel("Archived graphs").check();
  await expect(rowOf(used)).toBeVisible();
  await shoot(page, "graphs-archived");
  await page.getByLabel("Archived graphs").uncheck();

  await rowOf(empty).hover();
  await rowOf(empty).getByRole("button", { name: `Delete ${empty}` }).click();
  const dialog = page.getByRole("dialog", { name: `Delete ${empty}?` });
  await expect(dialog).toContainText("This cannot be undone");
  await dialog.getByTestId("confirm-action").click();
  await expect(rowOf(empty)).toHaveCount(0);
  expect((await page.request.get(`/api/trpc/specs.get?input=${encodeURIComponent(JSON.stringify({ spec: empty }))}`, { headers: auth() })).status()).toBe(404);

  // modexctl on specs.
  const archived = await modexctl(baseURL!, "archive", used, "--spec", "--undo");
  expect(archived.stdout).toContain(`spec ${used} no longer archived`);
  expect((await modexctl(baseURL!, "delete", used, "--spec")).code).toBe(1);
});
