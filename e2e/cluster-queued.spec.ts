import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import pg from "pg";
import { PgTestDatabase } from "../server/db/pg/testing/pg-test-database";
import { type ModexServer, SERVER_TOKEN } from "./support/modex-server";
import { WebProcesses } from "./support/web-processes";
import { WorkerProcess as Worker } from "./support/worker-process";

/**
 * A cluster whose workers are all gone: a Resume or an answer sent to the web process is accepted and
 * queued (the reply says `queued` after its 2 s wait). The instance view says so instead of reading
 * "paused" and offering Resume again; when a worker starts, the open view clears it live and shows
 * the run to its end.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const QUEUED = "Queued — waiting for a worker";
/** The same in a list row's badge (Instances, Home). */
const QUEUED_ROW = "queued for a worker";
/** The stand-in model server the Playwright config starts (release-notes' agent asks approval of its deliver). */
const FAKE_LLM = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo" };

interface View {
  summary: { status: string; waiting: boolean; queued: { kind: string } | null };
  heldAt: string | null;
}

async function open(page: Page, web: ModexServer, instanceId: string): Promise<void> {
  await page.goto(`${web.url}/api/auth/login?token=${SERVER_TOKEN}&next=/instances/${instanceId}`);
  await expect(page.getByTestId("instance-view")).toBeVisible({ timeout: 30_000 });
}

test("with no worker running, Resume and an answer read 'Queued — waiting for a worker' until a worker starts the run, which then completes in the view", async ({ page }) => {
  test.setTimeout(180_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await using database = await PgTestDatabase.create();
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env: { MODEX_SPECS_DIR: path.join(ROOT, "config/graphs") } });
  const first = Worker.start(database.url, "e2e-queued-w1");
  let second: Worker | null = null;
  try {
    const [web] = await webs.ready();
    await first.ready();
    const view = (id: string) => web.json<View>(`/api/graphs/instances/${id}`);
    // One run held at a breakpoint (Resume), one waiting for a person (the answer card), both by the first worker.
    const held = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "paced-pipeline", input: "queued", breakpoints: ["publish"] }) });
    const gate = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "approval-gate", input: "q1" }) });
    await expect.poll(async () => (await view(held.instanceId)).heldAt, { timeout: 30_000 }).toBe("publish");
    await expect.poll(async () => (await view(gate.instanceId)).summary.waiting, { timeout: 30_000 }).toBe(true);
    await first.stop();

    // Resume with no worker: accepted and queued, not "paused" with Resume offered again.
    await open(page, web, held.instanceId);
    const instance = page.getByTestId("instance-view");
    const toolbarBadge = page.getByTestId("status-badge").first();
    const summaryBadge = page.getByTestId("instance-summary").getByTestId("status-badge");
    await expect(instance).toHaveAttribute("data-status", "paused");
    const resume = page.getByRole("button", { name: "Resume", exact: true });
    await expect(resume).toBeEnabled();
    await resume.click();
    await expect(instance).toHaveAttribute("data-queued", "resume", { timeout: 15_000 });
    await expect(toolbarBadge).toHaveText(QUEUED);
    await expect(summaryBadge).toHaveText(QUEUED);
    await expect(resume).toBeDisabled();
    await expect(resume).toHaveAttribute("title", /no worker has started the run yet/);
    await expect(page.getByRole("button", { name: "Continue" })).toBeDisabled();
    expect((await view(held.instanceId)).summary.queued).toMatchObject({ kind: "resume" });
    await page.screenshot({ path: "e2e/screenshots/cluster-queued-resume.png" });
    // Read from the server, not kept by the page: a reload still says it.
    await page.reload();
    await expect(toolbarBadge).toHaveText(QUEUED, { timeout: 30_000 });

    // An answer with no worker: the card says it was sent and waits for a worker; no second answer box.
    await open(page, web, gate.instanceId);
    const card = page.getByTestId("human-input-card");
    await expect(card).toHaveAttribute("data-state", "waiting");
    await page.getByLabel("Your answer").fill("yes");
    await page.getByRole("button", { name: "Answer and resume" }).click();
    await expect(card).toHaveAttribute("data-state", "queued", { timeout: 15_000 });
    await expect(card).toContainText("Answer sent, waiting for a worker");
    await expect(card.getByTestId("queued-note")).toHaveText(/No worker has started the run yet/);
    await expect(page.getByLabel("Your answer")).toHaveCount(0);
    await expect(toolbarBadge).toHaveText(QUEUED);
    await expect(instance).toHaveAttribute("data-queued", "answer");
    await page.screenshot({ path: "e2e/screenshots/cluster-queued-answer.png" });

    // A worker starts: the open view clears "queued" live (no reload) and follows the run to its end.
    second = Worker.start(database.url, "e2e-queued-w2");
    await expect(instance).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
    await expect(instance).not.toHaveAttribute("data-queued", /.*/);
    await expect(toolbarBadge).toHaveText("completed");
    await expect(card).toHaveAttribute("data-state", "answered");
    await expect(page.getByTestId("instance-result")).toContainText("published (answer: yes)");
    await page.screenshot({ path: "e2e/screenshots/cluster-queued-started.png" });

    await open(page, web, held.instanceId);
    await expect(instance).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await expect(toolbarBadge).toHaveText("completed");
    await expect(page.getByTestId("instance-result")).toContainText("published ITEM QUEUED");
    expect(pageErrors).toEqual([]);
  } finally {
    await Promise.all([first.stop(), second?.stop()]);
  }
});

test("with no worker running, an agent's approval, a Recover and a deliver's new run read queued in the view, the Instances list and Home until a worker starts them", async ({ page }) => {
  test.setTimeout(240_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await using database = await PgTestDatabase.create();
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env: { ...FAKE_LLM, MODEX_SPECS_DIR: path.join(ROOT, "config/graphs") } });
  const first = Worker.start(database.url, "e2e-queued-w3", FAKE_LLM);
  let second: Worker | null = null;
  const sql = new pg.Client({ connectionString: database.url });
  try {
    const [web] = await webs.ready();
    await first.ready();
    await sql.connect();
    const view = (id: string) => web.json<View & { waitingFor: { kind: string } | null }>(`/api/graphs/instances/${id}`);
    const create = async (spec: string, input: string, breakpoints?: string[]) =>
      (await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec, input, breakpoints }) })).instanceId;
    // An agent asking approval of its deliver, a completed run, and one held that a dead worker leaves crashed.
    const agent = await create("release-notes", "- a queued change");
    const done = await create("paced-pipeline", "d");
    const crashed = await create("paced-pipeline", "c", ["publish"]);
    await expect.poll(async () => (await view(agent)).waitingFor?.kind ?? null, { timeout: 60_000 }).toBe("agent_approval");
    await expect.poll(async () => (await view(done)).summary.status, { timeout: 30_000 }).toBe("completed");
    await expect.poll(async () => (await view(crashed)).heldAt, { timeout: 30_000 }).toBe("publish");
    await first.stop();
    // As a crash leaves it (the row and its status event, as a worker's markCrashed writes them).
    await sql.query(`UPDATE graph_instances SET status = 'crashed', attrs = attrs - 'held_at' - 'breakpoints' WHERE instance_id = $1 AND is_latest`, [crashed]);
    await sql.query(`INSERT INTO engine_events (instance_id, version, type, payload, created_at) VALUES ($1, 1, 'instance_status', $2::json, now())`, [
      crashed,
      JSON.stringify({ type: "instance_status", instanceId: crashed, version: 1, from: "paused", to: "crashed" }),
    ]);

    // Approve with no worker: the card says the decision is sent and waits for a worker; no Approve again.
    await open(page, web, agent);
    const instance = page.getByTestId("instance-view");
    const toolbarBadge = page.getByTestId("status-badge").first();
    const card = page.getByTestId("agent-approval-card");
    await expect(card).toHaveAttribute("data-state", "waiting", { timeout: 30_000 });
    await card.getByRole("button", { name: "Approve" }).click();
    await expect(card).toHaveAttribute("data-state", "queued", { timeout: 15_000 });
    await expect(card.getByRole("heading")).toHaveText("Approved, waiting for a worker");
    await expect(card.getByTestId("queued-note")).toHaveText(/Decision sent\. No worker has started the run yet/);
    await expect(card.getByTestId("approval-decided")).toContainText("approved deliver of publisher");
    await expect(card.getByRole("button", { name: "Approve" })).toHaveCount(0);
    await expect(instance).toHaveAttribute("data-queued", "decision");
    await expect(toolbarBadge).toHaveText(QUEUED);
    await page.screenshot({ path: "e2e/screenshots/cluster-queued-approval.png" });

    // Recover of the crashed run: queued, Recover disabled with why (a second one would be refused).
    await open(page, web, crashed);
    await expect(instance).toHaveAttribute("data-status", "crashed");
    const recover = page.getByRole("button", { name: "Recover", exact: true });
    await recover.click();
    await expect(instance).toHaveAttribute("data-queued", "recover", { timeout: 15_000 });
    await expect(toolbarBadge).toHaveText(QUEUED);
    await expect(recover).toBeDisabled();
    await expect(recover).toHaveAttribute("title", /The recovery was accepted and is queued/);

    // A deliver to the completed run (its version 2 is due): queued, Re-invoke disabled with why.
    const delivered = await web.json<{ status: string; pickup: string }>(`/api/graphs/instances/${done}/deliver`, { method: "POST", body: JSON.stringify({ node: "publish", content: "late" }) });
    expect(delivered).toMatchObject({ status: "queued", pickup: "new_run" });
    await open(page, web, done);
    await expect(instance).toHaveAttribute("data-queued", "deliver");
    await expect(toolbarBadge).toHaveText(QUEUED);
    await expect(page.getByRole("button", { name: "Re-invoke…" })).toBeDisabled();

    // The Instances list and Home say it on each row, from the same mark, and clear it as the worker starts them.
    await page.goto(`${web.url}/instances`);
    const row = (id: string) => page.locator(`[data-testid="instance-row"][data-instance="${id}"]`);
    for (const [id, kind] of [[agent, "decision"], [crashed, "recover"], [done, "deliver"]]) {
      await expect(row(id).getByTestId("status-badge")).toHaveText(QUEUED_ROW, { timeout: 30_000 });
      await expect(row(id)).toHaveAttribute("data-queued", kind);
    }
    await expect(row(crashed).getByTestId("status-badge")).toHaveAttribute("data-status", "crashed");
    await expect(row(done).getByTestId("status-badge")).toHaveAttribute("title", /The delivered message was accepted and is queued/);
    // The approved run waits for nobody: its tab is Paused, not "Waiting for you".
    const tab = (t: string) => page.locator(`[role="tab"][data-tab="${t}"]`);
    await expect(tab("waiting")).toHaveText(/^Waiting for you\s*0$/);
    await expect(tab("paused")).toHaveText(/^Paused\s*1$/);
    await page.screenshot({ path: "e2e/screenshots/cluster-queued-list.png" });
    await page.goto(`${web.url}/`);
    const homeRow = (id: string) => page.getByTestId("home-recent").locator(`[data-testid="home-run"][data-instance="${id}"]`);
    for (const id of [agent, crashed, done]) await expect(homeRow(id).getByTestId("status-badge")).toHaveText(QUEUED_ROW, { timeout: 30_000 });
    // The approved run waits for nobody now: not under "Waiting for you".
    await expect(page.getByTestId("home-waiting")).toHaveCount(0);

    second = Worker.start(database.url, "e2e-queued-w4", FAKE_LLM);
    await page.goto(`${web.url}/instances`);
    for (const id of [agent, crashed, done]) await expect(row(id).getByTestId("status-badge")).toHaveText("completed", { timeout: 60_000 });
    for (const id of [agent, crashed, done]) await expect(row(id)).not.toHaveAttribute("data-queued", /.*/);
    await open(page, web, agent);
    await expect(card).toHaveAttribute("data-state", "decided", { timeout: 30_000 });
    await expect(card.getByRole("heading")).toHaveText("Approved");
    expect(pageErrors).toEqual([]);
  } finally {
    await sql.end().catch(() => undefined);
    await Promise.all([first.stop(), second?.stop()]);
  }
});
