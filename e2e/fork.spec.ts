import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { modexctl } from "./support/modexctl";
import { auth, saveSpec, signIn } from "./support/session";

/** A counter loop of its own (a new revision of it must not touch other tests' graphs). */
const counter = (name: string, template = "counted to {{state.count}}") => `name: ${name}
max_iterations: 100
state:
  count: { type: number, default: 0, description: How many times the loop body ran. }
nodes:
  - { name: tick, node_type: function, config: { op: increment, field: count, by: 1 } }
  - name: check
    node_type: function
    config: { op: route_if, field: count, compare: lt, value: 5, then: tick, else: done }
  - { name: done, node_type: function, config: { op: template, template: "${template}" } }
edges:
  - { from: __start__, to: tick }
  - { from: tick, to: check }
  - { from: check, to: tick }
  - { from: check, to: done }
  - { from: done, to: __end__ }
`;

interface LoggedEvent {
  id: number;
  event: { type: string; node?: string };
}

async function startCounter(request: APIRequestContext, spec: string): Promise<{ instanceId: string; events: LoggedEvent[] }> {
  const res = await request.post("/api/graphs/instances", { data: { spec }, headers: auth() });
  expect(res.status()).toBe(201);
  const { instanceId } = (await res.json()) as { instanceId: string };
  await expect.poll(async () => (await (await request.get(`/api/graphs/instances/${instanceId}`, { headers: auth() })).json()).summary.status, { timeout: 20_000 }).toBe("completed");
  const events = (await (await request.get(`/api/graphs/instances/${instanceId}/events`, { headers: auth() })).json()) as LoggedEvent[];
  return { instanceId, events };
}

/** Index (0-based) in the log of the n-th completion of `node`. */
const completionIndex = (events: LoggedEvent[], node: string, n: number) =>
  events.map((e, i) => ({ e, i })).filter(({ e }) => e.event.type === "node_completed" && e.event.node === node)[n - 1].i;

const countField = (page: Page) => page.getByTestId("state-panel").locator('[data-field="count"] dd');

test("replay shows the state at the scrubbed point; Fork from here starts a new run from it, with an edited state", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const spec = `e2e-fork-ui-${Date.now().toString(36)}`;
  await saveSpec(page.request, counter(spec));
  const { instanceId, events } = await startCounter(page.request, spec);

  await page.goto(`/instances/${instanceId}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(countField(page)).toHaveText("5");

  // Scrub to right after tick's second completion: the panel shows count 2 there, then 0 at the start.
  const second = completionIndex(events, "tick", 2);
  // A scrub before React hydrated the bar is lost (the input is re-rendered at the end): scrub again until it holds.
  await expect(async () => {
    await page.getByLabel("Replay position").fill(String(second + 1));
    await expect(page.getByTestId("state-replay-note")).toHaveText(`At event ${second + 1}: as tick left it.`, { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(countField(page)).toHaveText("2");
  await page.getByLabel("Replay position").fill("1");
  await expect(page.getByTestId("state-replay-note")).toContainText("the state the run started with");
  await expect(countField(page)).toHaveText("0");
  await page.getByLabel("Replay position").fill(String(second + 1));
  await expect(countField(page)).toHaveText("2");
  await page.screenshot({ path: "e2e/screenshots/instance-replay-state.png" });

  // Fork from here: the dialog shows what runs next and the state, checked as it is edited.
  await page.getByRole("button", { name: "Fork from here" }).click();
  const dialog = page.getByTestId("fork-dialog");
  await expect(dialog.getByTestId("fork-pending")).toContainText("check (from tick");
  const editor = dialog.getByLabel("Fork state");
  await expect(editor).toHaveValue(/"count": 2/);
  const text = await editor.inputValue();
  await editor.fill(text.replace('"count": 2', '"count": "four"'));
  await expect(dialog.getByTestId("fork-state-problems")).toHaveText("count: expected number, got string");
  await expect(page.getByRole("button", { name: "Start fork" })).toBeDisabled();
  await editor.fill(text.replace('"count": 2', '"count": 4'));
  await expect(dialog.getByTestId("fork-state-problems")).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/instance-fork-dialog.png" });
  await page.getByRole("button", { name: "Start fork" }).click();

  // The fork's page: it ran from count 4 (one more tick), and links back to its origin.
  await expect(page).not.toHaveURL(new RegExp(`/instances/${instanceId}$`), { timeout: 15_000 });
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("instance-result")).toHaveText("counted to 5");
  await expect(countField(page)).toHaveText("5");
  await expect(page.getByTestId("forked-from")).toHaveText(`fork of …${instanceId.slice(-6)}`);
  await expect(page.getByTestId("forked-from")).toHaveAttribute("data-event", String(second + 1));
  await page.screenshot({ path: "e2e/screenshots/instance-fork.png" });
  const forkUrl = page.url();
  await page.getByTestId("forked-from").click();
  await expect(page).toHaveURL(new RegExp(`/instances/${instanceId}$`));
  await expect(page.getByTestId("forks")).toContainText("1 fork");
  await page.getByTestId("forks").locator("summary").click();
  await expect(page.getByTestId("forks").getByRole("link")).toHaveAttribute("href", new URL(forkUrl).pathname);

  // From the timeline: select an event, fork from it (the state as it was then, unedited).
  await page.getByTestId("event-timeline").getByRole("list").evaluate((el) => (el.scrollTop = 0));
  await page.locator('[data-testid="timeline-row"][data-type="node_completed"]', { hasText: "tick" }).first().click();
  await expect(page.getByRole("button", { name: /^Fork from event \d+$/ })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/instance-fork-timeline.png" });
  await page.getByRole("button", { name: /^Fork from event \d+$/ }).click();
  await expect(page.getByTestId("fork-dialog").getByLabel("Fork state")).toHaveValue(/"count": 1/);
  await page.getByRole("button", { name: "Start fork" }).click();
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("forked-from")).toBeVisible();
  await expect(page.getByTestId("instance-result")).toHaveText("counted to 5");
  expect(pageErrors).toEqual([]);
});

test("REST and modexctl: the state at a point, forks on the same or a newer revision, refusals", async ({ request, baseURL }) => {
  const spec = `e2e-fork-http-${Date.now().toString(36)}`;
  await saveSpec(request, counter(spec));
  const { instanceId, events } = await startCounter(request, spec);
  const at = events[completionIndex(events, "tick", 3)].id;

  const point = await request.get(`/api/graphs/instances/${instanceId}/point?event=${at}`, { headers: auth() });
  expect(point.status()).toBe(200);
  expect(await point.json()).toMatchObject({ eventId: at, state: { count: 3 }, initial: false, asOf: { node: "tick" }, pending: [{ source: "tick", target: "check" }], unforkable: null });
  const end = await (await request.get(`/api/graphs/instances/${instanceId}/point`, { headers: auth() })).json();
  expect(end.unforkable).toMatch(/reached END/);
  expect((await request.get(`/api/graphs/instances/${instanceId}/point?event=0`, { headers: auth() })).status()).toBe(400);
  expect((await request.get(`/api/graphs/instances/${instanceId}/point?event=${at}`)).status()).toBe(401);

  // A state the schema refuses, a point after END: 400. A fork on a newer revision runs its nodes.
  const bad = await request.post(`/api/graphs/instances/${instanceId}/fork`, { data: { eventId: at, state: { count: "x" } }, headers: auth() });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error.message).toMatch(/state schema: count/);
  expect((await request.post(`/api/graphs/instances/${instanceId}/fork`, { data: { eventId: end.eventId }, headers: auth() })).status()).toBe(400);
  await saveSpec(request, counter(spec, "reached {{state.count}}"));
  const forked = await request.post(`/api/graphs/instances/${instanceId}/fork`, { data: { eventId: at, spec: "latest" }, headers: auth() });
  expect(forked.status()).toBe(201);
  const fork = (await forked.json()) as { instanceId: string; forkedFrom: { instanceId: string; eventId: number; specId: string | null } };
  expect(fork.forkedFrom).toMatchObject({ instanceId, eventId: at });
  expect(fork.forkedFrom.specId).not.toBeNull();
  await expect.poll(async () => (await (await request.get(`/api/graphs/instances/${fork.instanceId}`, { headers: auth() })).json()).summary.result?.[0]?.content, { timeout: 20_000 }).toBe("reached 5");

  // modexctl: point, then fork --wait with an edited state.
  const shown = await modexctl(baseURL!, "point", instanceId, "--event", String(at));
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toContain(`event ${at} (version 1): state saved by tick`);
  expect(shown.stdout).toContain('"count": 3');
  expect(shown.stdout).toContain("open delivers: tick → check");
  const cli = await modexctl(baseURL!, "fork", instanceId, "--event", String(at), "--state", JSON.stringify({ count: 4, result: [], resumeTarget: null }), "--wait");
  expect(cli.code, cli.stderr).toBe(0);
  expect(cli.stdout).toMatch(/status\s+completed/);
  expect(cli.stdout).toMatch(/result\s+counted to 5/);
  const noEvent = await modexctl(baseURL!, "fork", instanceId);
  expect(noEvent.code).not.toBe(0);
  expect(noEvent.stderr).toMatch(/--event/);

  const origin = await (await request.get(`/api/graphs/instances/${instanceId}`, { headers: auth() })).json();
  expect(origin.summary.lineage.forks).toHaveLength(2);
});
