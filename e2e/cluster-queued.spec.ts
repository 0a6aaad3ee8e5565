import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
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
