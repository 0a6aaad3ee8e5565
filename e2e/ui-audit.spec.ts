import { expect, test } from "@playwright/test";
import { auth, signIn } from "./support/session";
import { create } from "./support/runs";

/**
 * Found in the 2026-12-03 UI audit (docs/ui-audit-2026-12-03.md): links to a chat or a trace that does
 * not exist, tab titles that did not say what the tab shows, and dark text on the accent in light theme.
 */
test.describe.configure({ timeout: 60_000 });

const uid = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
const TITLE = (bare: string) => new RegExp(`^(\\(\\d+\\) )?${bare.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

test("a trace link to a chat or run that does not exist says so at once (no endless skeleton)", async ({ page }) => {
  await signIn(page);
  await page.goto("/traces?session=999&turn=1");
  const empty = page.getByTestId("empty-state");
  await expect(empty).toContainText("There is no chat 999", { timeout: 5_000 });
  await page.goto("/traces?instance=999&node=writer&turn=1");
  await expect(empty).toContainText("There is no run 999", { timeout: 5_000 });
  await empty.getByRole("link", { name: "All traces →" }).click();
  await expect(page).toHaveURL(/\/traces$/);
});

test("a trace link to a real run with a turn it did not run says the run has no such turn, not that there is no run", async ({ page }) => {
  const res = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "review-cycle", input: "Write add(a, b)." } });
  expect(res.status()).toBe(201);
  const { instanceId } = (await res.json()) as { instanceId: string };
  // Once the coder has run a turn, its node is known: only the turn id below is bogus.
  await expect
    .poll(async () => ((await (await page.request.get(`/api/graphs/instances/${instanceId}/usage`, { headers: auth() })).json()) as { nodes: { node: string }[] }).nodes.map((n) => n.node), { timeout: 60_000 })
    .toContain("coder");
  await signIn(page);
  const bogus = `bogus-${uid()}`;
  await page.goto(`/traces?instance=${instanceId}&node=coder&turn=${bogus}`);
  const empty = page.getByTestId("empty-state");
  await expect(empty).toContainText(`Run ${instanceId} has no turn ${bogus} at node coder`, { timeout: 5_000 });
  await expect(empty).not.toContainText("There is no run");
  await expect(empty.getByRole("link", { name: "All traces →" })).toHaveAttribute("href", "/traces");
  await page.goto(`/traces?instance=${instanceId}&node=ghost&turn=${bogus}`);
  await expect(empty).toContainText(`Node ghost of run ${instanceId} ran no agent turn`, { timeout: 5_000 });
  await empty.getByRole("link", { name: `Open run ${instanceId} →` }).click();
  await expect(page).toHaveURL(new RegExp(`/instances/${instanceId}$`));
  // A run that does not exist still says so.
  await page.goto(`/traces?instance=9${instanceId}99&node=coder&turn=${bogus}`);
  await expect(empty).toContainText(`There is no run 9${instanceId}99`, { timeout: 5_000 });
});

test("a link to a chat that does not exist: a not-found state, no composer that would start another chat", async ({ page }) => {
  await signIn(page);
  await page.goto("/chat?session=999");
  const empty = page.getByTestId("empty-state");
  await expect(empty).toContainText("There is no chat 999");
  await expect(page.getByText("stream lost")).toHaveCount(0);
  await expect(page.getByRole("textbox", { name: "Message", exact: true })).toHaveCount(0);
  await expect(page).toHaveTitle(TITLE("Chat not found · Modex"));
  await empty.getByRole("link", { name: "Start a new chat" }).click();
  await expect(page).toHaveURL(/\/chat$/);
  await expect(page.getByTestId("chat-empty")).toBeVisible();
  await expect(page).toHaveTitle(TITLE("Chat · Modex"));
});

test("tab titles name what the tab shows: a chat by its title, a run by its graph, a missing page", async ({ page }) => {
  const title = `ui-audit chat ${uid()}`;
  const res = await page.request.post("/api/chat", { data: { title }, headers: auth() });
  expect(res.status()).toBe(201);
  const { sessionId } = (await res.json()) as { sessionId: string };
  await signIn(page);
  await page.goto(`/chat?session=${sessionId}`);
  await expect(page).toHaveTitle(TITLE(`${title} · Chat · Modex`));
  await page.getByRole("link", { name: "New chat" }).click();
  await expect(page).toHaveTitle(TITLE("Chat · Modex"));

  const id = await create(page.request, "counter-loop", 1);
  await page.goto(`/instances?q=${id}`);
  await page.locator(`[data-testid="instance-row"][data-instance="${id}"]`).getByRole("link", { name: id }).click();
  await expect(page).toHaveURL(new RegExp(`/instances/${id}$`));
  await expect(page).toHaveTitle(TITLE(`counter-loop · Instance ${id} · Modex`));

  await page.goto(`/no-such-page-${uid()}`);
  await expect(page).toHaveTitle(TITLE("Page not found · Modex"));
});

test("light theme: text on the accent (primary buttons, your chat messages) stays white", async ({ browser }) => {
  const context = await browser.newContext({ colorScheme: "light" });
  const page = await context.newPage();
  await signIn(page);
  await page.goto("/graphs");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  const newGraph = page.getByRole("button", { name: "New graph" });
  await expect(newGraph).toHaveCSS("color", "rgb(255, 255, 255)");
  await page.goto("/");
  await expect(page.getByRole("link", { name: "Open graphs" })).toHaveCSS("color", "rgb(255, 255, 255)");
  await context.close();
});

test("a finished run says 'ended', not '● live'; a re-invoke brings it back live", async ({ page }) => {
  const id = await create(page.request, "approval-gate", `ended ${uid()}`);
  await signIn(page);
  await page.goto(`/instances/${id}`);
  const live = page.getByTestId("live-status");
  await expect(live).toHaveText("● live", { timeout: 30_000 });
  await page.getByLabel("Your answer").fill("yes");
  await page.getByRole("button", { name: "Answer and resume" }).click();
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(live).toHaveText("ended");
  await expect(live).toHaveAttribute("data-live", "ended");
  await expect(live).toHaveAttribute("title", /re-invoke or a deliver starts a new version/);
  // The stream stayed open: version 2 waiting for its answer is live again.
  await page.getByRole("button", { name: "Re-invoke…" }).click();
  const reinvoke = page.getByRole("dialog", { name: "Re-invoke as version 2" });
  await reinvoke.getByLabel("New input").fill('"again"');
  await reinvoke.getByRole("button", { name: "Run again" }).click();
  await expect(reinvoke).toBeHidden({ timeout: 30_000 });
  await expect(page.getByLabel("Version", { exact: true })).toHaveValue("2", { timeout: 30_000 });
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "paused", { timeout: 30_000 });
  await expect(live).toHaveText("● live");
});

test("an unknown instance or graph: one h1 that says it is not found, and the tab says so", async ({ page }) => {
  await signIn(page);
  const name = `no-such-${uid()}`;
  await page.goto(`/instances/${name}`);
  await expect(page.getByTestId("empty-state")).toContainText(`There is no instance ${name}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Instance not found");
  await expect(page).toHaveTitle(TITLE("Instance not found · Modex"));
  await page.goto(`/graphs/${name}`);
  await expect(page.getByTestId("empty-state")).toContainText(`There is no graph named “${name}”`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Graph not found");
  await expect(page).toHaveTitle(TITLE("Graph not found · Modex"));
});

test("the Agents editor's Save looks like the graph editor's (outlined), saved or not", async ({ page }) => {
  await signIn(page);
  const look = async () => {
    const save = page.getByRole("button", { name: /^Save/ });
    await expect(save).toBeVisible({ timeout: 30_000 });
    return save.evaluate((el) => {
      const s = getComputedStyle(el);
      return { background: s.backgroundColor, border: s.borderTopWidth };
    });
  };
  await page.goto("/graphs/counter-loop");
  const graphs = await look();
  expect(graphs.border).toBe("1px");
  await page.goto("/agents?agent=coder");
  await expect(page.getByTestId("dirty-state")).toHaveText("saved", { timeout: 30_000 });
  expect(await look()).toEqual(graphs);
  await page.goto("/agents?new=1");
  await expect(page.getByTestId("dirty-state")).toHaveText("not saved yet");
  expect(await look()).toEqual(graphs);
});

test("the Agents and Traces tabs name what they show: the agent, the traces' filter", async ({ page }) => {
  await signIn(page);
  await page.goto("/agents?agent=coder");
  await expect(page).toHaveTitle(TITLE("coder · Agents · Modex"));
  await page.getByTestId("agent-row").filter({ hasText: /^reviewer/ }).click();
  await expect(page).toHaveTitle(TITLE("reviewer · Agents · Modex"));
  await page.getByRole("button", { name: "New agent" }).click();
  await expect(page).toHaveTitle(TITLE("New agent · Agents · Modex"));

  await page.goto("/traces");
  await expect(page).toHaveTitle(TITLE("Traces · Modex"));
  await page.getByRole("tab", { name: "Graph runs" }).click();
  await expect(page).toHaveTitle(TITLE("Graph runs · Traces · Modex"));
  await page.getByRole("checkbox", { name: "Failed only" }).check();
  await expect(page).toHaveTitle(TITLE("Graph runs, failed only · Traces · Modex"));
  await page.getByRole("tab", { name: "All turns" }).click();
  await expect(page).toHaveTitle(TITLE("Failed only · Traces · Modex"));
  await page.getByRole("checkbox", { name: "Failed only" }).uncheck();
  await expect(page).toHaveTitle(TITLE("Traces · Modex"));
});

// Session 26 (docs/ui-audit-2026-12-03.md): the trigger dialogs and the agent revisions at a 1024 px window.
test.describe("session 26, at 1024 × 768", () => {
  test.use({ viewport: { width: 1024, height: 768 } });

  test("the trigger dialogs: a disabled Save says why, the cron box is level with the time zone's, the auth choice shows whole, a refusal is said under the fields with one-line buttons", async ({ page }) => {
    await signIn(page);
    await page.goto("/triggers");
    const oneLine = async (dialog: ReturnType<typeof page.getByRole>, action: string) => {
      const [save, cancel] = await Promise.all([dialog.getByRole("button", { name: action }).boundingBox(), dialog.getByRole("button", { name: "Cancel" }).boundingBox()]);
      expect(save!.height).toBeLessThanOrEqual(cancel!.height + 1);
    };

    await page.getByRole("button", { name: "New schedule" }).click();
    const schedule = page.getByRole("dialog", { name: "New schedule" });
    await expect(schedule.getByRole("button", { name: "Save schedule" })).toBeDisabled();
    await expect(schedule.getByRole("button", { name: "Save schedule" })).toHaveAttribute("title", "Name the schedule first");
    const [cron, zone] = await Promise.all([schedule.getByLabel("Cron expression").boundingBox(), schedule.getByLabel("Time zone").boundingBox()]);
    expect(Math.abs(cron!.y - zone!.y)).toBeLessThanOrEqual(1);
    await schedule.getByLabel("Schedule name").fill(`refused-${uid()}`);
    await schedule.getByLabel("Cron expression").fill("every hour");
    await schedule.getByRole("button", { name: "Save schedule" }).click();
    await expect(schedule.getByTestId("trigger-form-error")).toContainText("cron");
    await oneLine(schedule, "Save schedule");
    await schedule.getByRole("button", { name: "Cancel" }).click();

    await page.getByRole("button", { name: "New webhook" }).click();
    const hook = page.getByRole("dialog", { name: "New webhook" });
    await expect(hook.getByRole("button", { name: "Create webhook" })).toHaveAttribute("title", "Name the webhook first");
    // Each choice's text fits the box (measured in the box's own font, less its padding and arrow).
    const fits = await hook.getByLabel("Hook auth").evaluate((select: HTMLSelectElement) => {
      const s = getComputedStyle(select);
      const ctx = document.createElement("canvas").getContext("2d")!;
      ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const room = select.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 24;
      return [...select.options].map((o) => ctx.measureText(o.text).width <= room);
    });
    expect(fits).toEqual([true, true]);
    await hook.getByLabel("Hook name").fill("bad name!");
    await hook.getByRole("button", { name: "Create webhook" }).click();
    await expect(hook.getByTestId("trigger-form-error")).toContainText("hook names hold");
    await oneLine(hook, "Create webhook");
  });

  test("an agent's revision list closes on Escape and on a click outside it; the revision dialog keeps a margin", async ({ page }) => {
    const name = `e2e-dismiss-${uid()}`;
    const headers = { ...auth(), "content-type": "application/yaml" };
    for (const words of ["First words.", "Second words."]) {
      expect((await page.request.put(`/api/agents/${name}`, { headers, data: `name: ${name}\ndescription: ${words}\ninstructions: Say hello.\n` })).status()).toBe(200);
    }
    await signIn(page);
    await page.goto(`/agents?agent=${name}`);
    const revisions = page.getByTestId("agent-revisions");
    const summary = revisions.locator("summary");
    await expect(summary).toHaveText("2 revisions");
    const isOpen = () => revisions.evaluate((d: HTMLDetailsElement) => d.open);
    await summary.click();
    await expect(revisions.getByTestId("agent-revision").first()).toBeVisible();
    await page.keyboard.press("Escape");
    await expect.poll(isOpen).toBe(false);
    await expect(summary).toBeFocused();
    await summary.click();
    await expect.poll(isOpen).toBe(true);
    await page.getByTestId("agent-name").click();
    await expect.poll(isOpen).toBe(false);

    await summary.click();
    await revisions.getByTestId("agent-revision").last().click();
    const box = (await page.getByRole("dialog", { name: `${name}: revision #1 of 2` }).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(15);
    expect(box.x + box.width).toBeLessThanOrEqual(1024 - 15);
  });
});
