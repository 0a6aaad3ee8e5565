import { expect, test } from "@playwright/test";
import { auth, saveSpec, signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });

const slowSpec = (name: string) => `name: ${name}
version: "1"
description: Waits for a go-ahead, then three paced steps, slow enough to watch, pause and resume.
nodes:
  - name: gate
    node_type: human_input
    config: { prompt: "Go?" }
  - name: fetch
    node_type: delay
    config: { ms: 3000 }
  - name: think
    node_type: delay
    config: { ms: 3000 }
  - name: write
    node_type: delay
    config: { ms: 3000 }
  - name: report
    node_type: function
    config: { op: template, template: "done: {{input}}" }
edges:
  - { from: __start__, to: gate }
  - { from: gate, to: fetch }
  - { from: fetch, to: think }
  - { from: think, to: write }
  - { from: write, to: report }
  - { from: report, to: __end__ }
`;

test("run from the editor, watch pulses travel, pause, resume, finish, then replay", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const name = `e2e-slow-${Date.now().toString(36)}`;
  await saveSpec(page.request, slowSpec(name));

  await page.goto(`/graphs/${name}`);
  await expect(page.getByTestId("spec-preview")).toHaveAttribute("data-node-count", "7", { timeout: 60_000 });
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByLabel("Input").fill('"the news"');
  await page.screenshot({ path: "e2e/screenshots/run-dialog.png" });
  await page.getByRole("button", { name: "Start run" }).click();

  await expect(page).toHaveURL(/\/instances\/[^/]+$/, { timeout: 30_000 });
  const view = page.getByTestId("instance-view");
  await expect(view).toBeVisible({ timeout: 30_000 });
  // The run waits at the gate until the page is watching; the answer sets it going.
  await page.getByLabel("Your answer").fill('"the news"');
  await page.getByRole("button", { name: "Answer and resume" }).click();
  // Deliveries animate along their edges as the events arrive.
  await expect.poll(async () => Number((await page.getByTestId("pulse-layer").getAttribute("data-pulses-shown")) ?? 0), { timeout: 15_000 }).toBeGreaterThan(0);
  await page.screenshot({ path: "e2e/screenshots/instance-running.png" });
  await expect(page.getByRole("button", { name: "Pause", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(view).toHaveAttribute("data-status", "paused", { timeout: 15_000 });
  await expect(page.getByRole("button", { name: "Pause", exact: true })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Pause", exact: true })).toHaveAttribute("title", "Already paused");
  await page.screenshot({ path: "e2e/screenshots/instance-paused.png" });

  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("instance-result")).toContainText("done: the news");
  await expect(page.locator('[data-testid="canvas-node"][data-node="report"]')).toHaveAttribute("data-state", "completed");

  // The timeline: clicking an event highlights it on the canvas.
  await page.locator('[data-testid="timeline-row"][data-type="deliver_promoted"]').first().click();
  await page.locator('[data-testid="canvas-node"][data-node="fetch"]').click();
  await expect(page.getByTestId("node-detail")).toContainText("completed");
  await page.screenshot({ path: "e2e/screenshots/instance-completed.png" });

  // Replay: scrub back to the start, then play the pulses again.
  await expect(page.getByTestId("replay-bar")).toBeVisible();
  await page.getByLabel("Replay position").fill("0");
  await expect(page.locator('[data-testid="canvas-node"][data-node="report"]')).not.toHaveAttribute("data-state", "completed");
  const before = Number((await page.getByTestId("pulse-layer").getAttribute("data-pulses-shown")) ?? 0);
  await page.getByRole("button", { name: "Play replay" }).click();
  await expect.poll(async () => Number((await page.getByTestId("pulse-layer").getAttribute("data-pulses-shown")) ?? 0), { timeout: 15_000 }).toBeGreaterThan(before);
  await page.screenshot({ path: "e2e/screenshots/instance-replay.png" });

  await page.goto("/instances");
  await expect(page.getByTestId("instance-row").first()).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/instances.png" });
  expect(pageErrors).toEqual([]);
});

test("a human input card: answer it and the run resumes, showing who answered", async ({ page, browser }) => {
  await signIn(page);
  const name = `e2e-approval-${Date.now().toString(36)}`;
  await saveSpec(
    page.request,
    `name: ${name}
state:
  decision: { type: any }
nodes:
  - name: draft
    node_type: function
    config: { op: template, template: "Deploy {{input}}" }
  - name: approve
    node_type: human_input
    config: { prompt: "Approve this deploy? Answer yes or no." }
  - name: record
    node_type: function
    config: { op: set_state, field: decision }
  - name: decide
    node_type: function
    config: { op: route_if, compare: in, value: [yes, y], then: publish, else: reject }
  - name: publish
    node_type: function
    config: { op: template, template: "published" }
  - name: reject
    node_type: function
    config: { op: template, template: "rejected" }
edges:
  - { from: __start__, to: draft }
  - { from: draft, to: approve }
  - { from: approve, to: record }
  - { from: record, to: decide }
  - { from: decide, to: publish }
  - { from: decide, to: reject }
  - { from: publish, to: __end__ }
  - { from: reject, to: __end__ }
`,
  );
  await page.goto(`/graphs/${name}`);
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByLabel("Input").fill("v2.1");
  await page.getByRole("button", { name: "Start run" }).click();

  const card = page.getByTestId("human-input-card");
  await expect(card).toHaveAttribute("data-state", "waiting", { timeout: 30_000 });
  await expect(page.getByTestId("human-input-prompt")).toHaveText("Approve this deploy? Answer yes or no.");
  await expect(page.locator('[data-testid="canvas-node"][data-node="approve"]')).toHaveAttribute("data-state", "waiting");
  await expect(page.getByRole("button", { name: "Resume", exact: true })).toHaveAttribute("title", /answer the card/);
  // The version switcher names the state as the status badge does, not the engine's "paused".
  await expect(page.getByTestId("status-badge").first()).toHaveText("waiting for input");
  await expect(page.getByLabel("Version").locator("option:checked")).toHaveText("v1 · waiting for input");
  await page.screenshot({ path: "e2e/screenshots/instance-human-input.png" });

  await page.getByLabel("Your answer").fill("yes");
  await page.getByRole("button", { name: "Answer and resume" }).click();
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("instance-result")).toContainText("published");
  await expect(card).toHaveAttribute("data-state", "answered");
  await expect(card).toContainText("Answered: yes");
  // This login answered: "You", not the third person (the server records the sign-in session, so a reload says it too).
  await expect(page.getByTestId("answered-by")).toHaveText("You");
  await page.reload();
  await expect(card).toHaveAttribute("data-state", "answered", { timeout: 30_000 });
  await expect(page.getByTestId("answered-by")).toHaveText("You");
  // What was answered is the run's record: after a reload the card and the timeline still say it.
  await expect(page.getByTestId("answered-value")).toHaveText("Answered: yes");
  await page.getByLabel("Filter events by node").selectOption("approve");
  await page.getByLabel("Filter events by type").selectOption("deliver_promoted");
  const answerRow = page.getByTestId("timeline-row").filter({ hasText: "answered" });
  await expect(answerRow.getByTestId("timeline-detail")).toHaveText("approve: yes");
  await page.screenshot({ path: "e2e/screenshots/instance-answered.png" });
  // Who answered is the server's record: another tab of the same login says "You" too...
  const other = await page.context().newPage();
  await other.goto(page.url());
  await expect(other.getByTestId("answered-by")).toHaveText("You", { timeout: 30_000 });
  await expect(other.getByTestId("answered-value")).toHaveText("Answered: yes");
  await other.close();
  // ...and a browser signed in separately (another sign-in session) does not.
  const elsewhere = await browser.newContext();
  const stranger = await elsewhere.newPage();
  await signIn(stranger);
  await stranger.goto(page.url());
  await expect(stranger.getByTestId("answered-by")).toHaveText("Another browser session", { timeout: 30_000 });
  await elsewhere.close();

  // An answer given through REST (as modexctl sends it) shows the same way, by the API.
  const made = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: name, input: "v2.2" } });
  expect(made.ok()).toBe(true);
  const { instanceId } = (await made.json()) as { instanceId: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/graphs/instances/${instanceId}`, { headers: auth() })).json()) as { summary: { status: string } }).summary.status, { timeout: 15_000 })
    .toBe("paused");
  const answered = await page.request.post(`/api/graphs/instances/${instanceId}/answer`, { headers: auth(), data: { value: "no" } });
  expect(answered.ok()).toBe(true);
  await page.goto(`/instances/${instanceId}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("answered-value")).toHaveText("Answered: no");
  await expect(page.getByTestId("answered-by")).toHaveText("The API (access token)");
});
