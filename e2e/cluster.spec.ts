import { cpSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { PgTestDatabase } from "../server/db/pg/testing/pg-test-database";
import { type ModexServer, removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";
import { WebProcesses } from "./support/web-processes";
import { WorkerProcess as Worker } from "./support/worker-process";

/**
 * Modex beyond one process (issue 19): a web process (MODEX_ROLE=web: UI, REST, SSE; runs nothing) and
 * two worker processes (`npm run worker`) on one real PostgreSQL database. Everything a user does goes
 * to the web process; the workers run it.
 */
const ROOT = path.resolve(import.meta.dirname, "..");

/** Six 400 ms steps: long enough to pause and deliver while a worker runs it. */
const SLOW = `name: slow-steps
nodes:
${[1, 2, 3, 4, 5, 6].map((i) => `  - { name: s${i}, node_type: delay, config: { ms: 400 } }`).join("\n")}
  - { name: last, node_type: function, config: { op: template, template: "done {{input}}" } }
edges:
  - { from: __start__, to: s1 }
${[1, 2, 3, 4, 5].map((i) => `  - { from: s${i}, to: s${i + 1} }`).join("\n")}
  - { from: s6, to: last }
  - { from: last, to: __end__ }
`;

interface View {
  summary: { status: string; result?: unknown[] };
}

/** The instance's events over the SSE subscription the instance view uses, until `until` is seen. */
async function sseEvents(server: ModexServer, instanceId: string, until: (type: string) => boolean): Promise<{ id: number; type: string }[]> {
  const input = encodeURIComponent(JSON.stringify({ instanceId }));
  const res = await server.fetch(`/api/trpc/instances.onEvent?input=${input}`, { headers: { accept: "text/event-stream" } });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.getReader();
  const seen: { id: number; type: string }[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += new TextDecoder().decode(value);
    const blocks = buffer.split("\n\n");
    buffer = blocks.pop()!;
    for (const block of blocks) {
      const data = block.split("\n").find((l) => l.startsWith("data: "));
      const id = block.split("\n").find((l) => l.startsWith("id: "));
      if (!data || !id) continue;
      const event = JSON.parse(data.slice(6)) as { event: { type: string } };
      seen.push({ id: Number(id.slice(4)), type: event.event.type });
      if (until(event.event.type)) {
        await reader.cancel();
        return seen;
      }
    }
  }
  return seen;
}

test.describe.configure({ mode: "serial" });

test("a web process and two workers on PostgreSQL: create, watch live, pause, resume, answer, all from the web process", async ({ page }) => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  const specsDir = tempDir("modex-cluster-graphs-");
  cpSync(path.join(ROOT, "config/graphs"), specsDir, { recursive: true });
  writeFileSync(path.join(specsDir, "slow-steps.yml"), SLOW);
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env: { MODEX_SPECS_DIR: specsDir } });
  const workers = [Worker.start(database.url, "e2e-w1"), Worker.start(database.url, "e2e-w2")];
  try {
    const [web] = await webs.ready();
    await Promise.all(workers.map((w) => w.ready()));
    expect(web.output).not.toContain("recovering");

    // A run created on the web process, executed by a worker, watched live from the web process.
    const { instanceId } = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "paced-pipeline", input: "cluster" }) });
    const live = await sseEvents(web, instanceId, (t) => t === "run_finished");
    const logged = await web.json<{ id: number; event: { type: string } }[]>(`/api/graphs/instances/${instanceId}/events?limit=1000`);
    expect(live).toEqual(logged.map((e) => ({ id: e.id, type: e.event.type })));
    expect((await web.json<View>(`/api/graphs/instances/${instanceId}`)).summary).toMatchObject({ status: "completed", result: [{ content: "published ITEM CLUSTER" }] });

    // Human input: the worker saves what the run waits for; the answer, sent to the web process, resumes it on a worker.
    const gate = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "approval-gate", input: "v2" }) });
    await expect.poll(async () => (await web.json<View>(`/api/graphs/instances/${gate.instanceId}`)).summary.status, { timeout: 30_000 }).toBe("paused");
    const answered = await web.fetch(`/api/graphs/instances/${gate.instanceId}/answer`, { method: "POST", body: JSON.stringify({ value: "yes" }) });
    expect(answered.status).toBe(200);
    await expect.poll(async () => (await web.json<View>(`/api/graphs/instances/${gate.instanceId}`)).summary.status, { timeout: 30_000 }).toBe("completed");

    // Pause, deliver and resume sent to the web process while a worker runs the instance.
    const slow = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "slow-steps", input: "p" }) });
    await sseEvents(web, slow.instanceId, (t) => t === "node_completed");
    const paused = await web.json<{ status: string; draining?: boolean }>(`/api/graphs/instances/${slow.instanceId}/pause`, { method: "POST", body: "{}" });
    expect(paused).toMatchObject({ status: "paused", draining: false });
    const delivered = await web.json<{ pickup: string }>(`/api/graphs/instances/${slow.instanceId}/deliver`, { method: "POST", body: JSON.stringify({ node: "last", content: "extra" }) });
    expect(delivered.pickup).toBe("on_resume");
    expect((await web.fetch(`/api/graphs/instances/${slow.instanceId}/answer`, { method: "POST", body: JSON.stringify({ value: "x" }) })).status).toBe(409);
    expect((await web.json<{ status: string }>(`/api/graphs/instances/${slow.instanceId}/resume`, { method: "POST", body: "{}" })).status).toBeDefined();
    await expect.poll(async () => (await web.json<View>(`/api/graphs/instances/${slow.instanceId}`)).summary.status, { timeout: 30_000 }).toBe("completed");
    const slowEvents = await web.json<{ event: { type: string; nodeName?: string; node?: string } }[]>(`/api/graphs/instances/${slow.instanceId}/events?limit=1000`);
    expect(slowEvents.filter((e) => e.event.type === "run_finished")).toHaveLength(1);

    // The instance view on the web process shows a worker's run.
    await page.goto(`${web.url}/api/auth/login?token=${SERVER_TOKEN}&next=/instances/${instanceId}`);
    await expect(page.getByText("completed").first()).toBeVisible({ timeout: 30_000 });
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    removeDir(specsDir);
  }
});

/** The replay state panel's `count` field (the instance view, as e2e/fork.spec.ts reads it). */
const countField = (page: Page) => page.getByTestId("state-panel").locator('[data-field="count"] dd');

test("on a cluster, the replay bar shows a worker's run step by step, and Fork from here commits a fork a worker runs", async ({ page }) => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env: { MODEX_SPECS_DIR: path.join(ROOT, "config/graphs") } });
  const worker = Worker.start(database.url, "e2e-fork-w1");
  try {
    const [web] = await webs.ready();
    await worker.ready();
    const { instanceId } = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "counter-loop" }) });
    await expect.poll(async () => (await web.json<View>(`/api/graphs/instances/${instanceId}`)).summary.status, { timeout: 30_000 }).toBe("completed");
    const events = await web.json<{ id: number; event: { type: string; node?: string } }[]>(`/api/graphs/instances/${instanceId}/events?limit=1000`);
    const second = events.map((e, i) => ({ e, i })).filter(({ e }) => e.event.type === "node_completed" && e.event.node === "tick")[1].i;
    // The worker kept the state as of each step: the web process answers the point from PostgreSQL.
    const point = await web.json<unknown>(`/api/graphs/instances/${instanceId}/point?event=${events[second].id}`);
    expect(point).toMatchObject({ state: { count: 2 }, initial: false, asOf: { node: "tick" }, pending: [{ source: "tick", target: "check" }], unforkable: null });

    await page.goto(`${web.url}/api/auth/login?token=${SERVER_TOKEN}&next=/instances/${instanceId}`);
    await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await expect(countField(page)).toHaveText("5");
    // A scrub before React hydrated the bar is lost (the input is re-rendered at the end): scrub again until it holds.
    await expect(async () => {
      await page.getByLabel("Replay position").fill(String(second + 1));
      await expect(page.getByTestId("state-replay-note")).toHaveText(`At event ${second + 1}: as tick left it.`, { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await expect(countField(page)).toHaveText("2");

    // Fork from here with an edited state: the web process commits it with its job; a worker runs it.
    await page.getByRole("button", { name: "Fork from here" }).click();
    const dialog = page.getByTestId("fork-dialog");
    await expect(dialog.getByTestId("fork-pending")).toContainText("check (from tick");
    const editor = dialog.getByLabel("Fork state");
    await expect(editor).toHaveValue(/"count": 2/);
    await editor.fill((await editor.inputValue()).replace('"count": 2', '"count": 4'));
    await expect(dialog.getByTestId("fork-state-problems")).toHaveCount(0);
    await page.getByRole("button", { name: "Start fork" }).click();
    await expect(page).not.toHaveURL(new RegExp(`/instances/${instanceId}$`), { timeout: 15_000 });
    await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await expect(page.getByTestId("instance-result")).toHaveText("counted to 5");
    await expect(page.getByTestId("forked-from")).toHaveText(`fork of …${instanceId.slice(-6)}`);
    const forkId = new URL(page.url()).pathname.split("/").pop()!;
    // From count 4: one more tick, on the worker, and never from START again.
    const fork = await web.json<{ invocations: { node: string }[] }>(`/api/graphs/instances/${forkId}`);
    expect(fork.invocations.map((i) => i.node).filter((n) => n === "tick" || n === "__start__")).toEqual(["tick"]);
    const origin = await web.json<{ summary: { lineage: { forks: { instanceId: string }[] } } }>(`/api/graphs/instances/${instanceId}`);
    expect(origin.summary.lineage.forks.map((f) => f.instanceId)).toEqual([forkId]);
  } finally {
    await worker.stop();
  }
});

/** What the instance view's toolbar shows, recorded at every change of the page (in the browser). */
interface ToolbarFrame {
  at: number;
  status: string | null;
  version: string | null;
  resume: string | null;
  resumeEnabled: boolean;
  reinvokeDialog: boolean;
}

async function recordToolbar(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { frames_: ToolbarFrame[] };
    w.frames_ = [];
    const snap = () => {
      const resume = document.querySelector<HTMLButtonElement>('button[aria-label="Resume"]');
      const frame = {
        at: performance.now(),
        status: document.querySelector('[data-testid="instance-view"]')?.getAttribute("data-status") ?? null,
        version: document.querySelector<HTMLSelectElement>('select[aria-label="Version"]')?.value ?? null,
        resume: resume?.textContent ?? null,
        resumeEnabled: resume ? !resume.disabled : false,
        reinvokeDialog: document.querySelector("dialog[open]") !== null,
      };
      const last = w.frames_.at(-1);
      if (!last || JSON.stringify({ ...last, at: 0 }) !== JSON.stringify({ ...frame, at: 0 })) w.frames_.push(frame);
    };
    snap();
    new MutationObserver(snap).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

const toolbarFrames = (page: Page) => page.evaluate(() => (window as unknown as { frames_: ToolbarFrame[] }).frames_);

test("on a cluster, Resume and Re-invoke in the instance view go from the command straight to the worker's run: the toolbar never shows the state from before as if nothing happened", async ({ page }) => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  const specsDir = tempDir("modex-cluster-graphs-");
  writeFileSync(path.join(specsDir, "slow-steps.yml"), SLOW);
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env: { MODEX_SPECS_DIR: specsDir } });
  const worker = Worker.start(database.url, "e2e-replies-w1");
  try {
    const [web] = await webs.ready();
    await worker.ready();
    const { instanceId } = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "slow-steps", input: "b", breakpoints: ["s2"] }) });
    await page.goto(`${web.url}/api/auth/login?token=${SERVER_TOKEN}&next=/instances/${instanceId}`);
    const view = page.getByTestId("instance-view");
    await expect(view).toHaveAttribute("data-status", "paused", { timeout: 30_000 });
    const resume = page.getByRole("button", { name: "Resume", exact: true });
    await expect(resume).toBeEnabled();

    // Resume: "Resume…" while the web process waits for the worker's start, then running.
    await recordToolbar(page);
    await resume.click();
    await expect(view).toHaveAttribute("data-status", "running", { timeout: 15_000 });
    await expect(resume).toHaveText("Resume");
    const afterResume = await toolbarFrames(page);
    const clicked = afterResume.findIndex((f) => f.resume === "Resume…");
    expect(clicked, JSON.stringify(afterResume)).toBeGreaterThan(0);
    // Between the click and the run: never paused with the Resume button back as if nothing happened.
    const beforeRunning = afterResume.slice(clicked, afterResume.findIndex((f) => f.status === "running"));
    expect(beforeRunning.filter((f) => f.status === "paused" && f.resume === "Resume" && f.resumeEnabled), JSON.stringify(afterResume)).toEqual([]);

    // Re-invoke: the dialog closes on a reply that names version 2, which the toolbar then shows.
    await expect(view).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await page.getByRole("button", { name: "Re-invoke…" }).click();
    const dialog = page.getByRole("dialog", { name: "Re-invoke as version 2" });
    await dialog.getByLabel("New input").fill('"again"');
    await recordToolbar(page);
    await dialog.getByRole("button", { name: "Run again" }).click();
    await expect(dialog).toBeHidden({ timeout: 15_000 });
    await expect(page.getByLabel("Version")).toHaveValue("2");
    await expect(view).toHaveAttribute("data-status", /running|paused/);
    const afterReinvoke = await toolbarFrames(page);
    // Once the dialog closed: never version 1 completed (the state from before) shown as the latest.
    const closed = afterReinvoke.findIndex((f) => !f.reinvokeDialog);
    expect(afterReinvoke.slice(closed).filter((f) => f.version === "1" && f.status === "completed"), JSON.stringify(afterReinvoke)).toEqual([]);
  } finally {
    await worker.stop();
    removeDir(specsDir);
  }
});

/** The stand-in model server the Playwright config starts (a coder node on a "slow" input streams for minutes). */
const FAKE_LLM = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo" };

test("on a cluster, the instance view on a web process streams the text of an agent node a worker runs, and a node opened mid-call shows all it streamed so far", async ({ page }) => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  await using webs = await WebProcesses.start({ databaseUrl: database.url, count: 1, env: { ...FAKE_LLM, MODEX_SPECS_DIR: path.join(ROOT, "config/graphs") } });
  const worker = Worker.start(database.url, "e2e-live-w1", FAKE_LLM);
  try {
    const [web] = await webs.ready();
    await worker.ready();
    const { instanceId } = await web.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "review-cycle", input: "slow: write add(a, b)" }) });
    // The coder's model call streams on the worker for a while before the page opens.
    await expect
      .poll(async () => (await web.json<{ event: { type: string; activity?: { kind: string } } }[]>(`/api/graphs/instances/${instanceId}/events?limit=1000`)).some((e) => e.event.activity?.kind === "turn_started"), { timeout: 30_000 })
      .toBe(true);
    await page.waitForTimeout(1_500);
    await page.goto(`${web.url}/api/auth/login?token=${SERVER_TOKEN}&next=/instances/${instanceId}`);
    const detail = page.getByRole("region", { name: "Node coder" });
    // A click that lands while the canvas pans to the running node can miss it: click until the detail opens.
    await expect(async () => {
      await page.locator('[data-testid="canvas-node"][data-node="coder"]').click();
      await expect(detail).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    const streaming = page.getByTestId("agent-streaming");
    // From the first word (the text so far, relayed from the worker), then on as the worker streams.
    await expect(streaming).toContainText("Thinking about step 2", { timeout: 30_000 });
    expect(await streaming.textContent()).toMatch(/^Thinking about step 1 of the change\. Thinking about step 2/);
    const shown = (await streaming.textContent())!.length;
    await expect.poll(async () => (await streaming.textContent())!.length, { timeout: 10_000 }).toBeGreaterThan(shown + 20);
    // The slow call would stream for minutes: stop the run.
    expect((await web.fetch(`/api/graphs/instances/${instanceId}/stop`, { method: "POST", body: "{}" })).status).toBe(200);
    await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "stopped", { timeout: 15_000 });
  } finally {
    await worker.stop();
  }
});
