import { createHmac } from "node:crypto";
import { expect, test } from "@playwright/test";
import { accessToken, signIn } from "./support/session";
import { ModexServer, removeDir, tempDir } from "./support/modex-server";

/**
 * Triggers against the production server: schedules that fire through kill -9 and restarts (extra
 * `next start` processes on the same build, each with its own data directory), webhooks over HTTP with
 * nothing but their own secret, and the Triggers page in Chromium.
 */

interface StartedBy {
  kind: string;
  name?: string;
  fireAt?: number;
}

async function startedBy(server: ModexServer, instanceId: string): Promise<StartedBy | null> {
  const res = await server.fetch(`/api/trpc/triggers.startedBy?input=${encodeURIComponent(JSON.stringify({ instanceId }))}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { data: StartedBy | null } }).result.data;
}

async function instanceIds(server: ModexServer): Promise<string[]> {
  const list = await server.json<{ instanceId: string }[]>("/api/graphs/instances?limit=500");
  return list.map((i) => i.instanceId);
}

/** A cron with seconds, for one second of the day in UTC: fires at `at` (and a day later). */
const cronAt = (at: number): string => {
  const d = new Date(at);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
};

test.describe("schedules through restarts", { tag: "@own-server" }, () => {
  test.describe.configure({ mode: "serial" });

  test("a fire due while the server is down runs once at the restart (run_once), and once only after another restart", async () => {
    test.setTimeout(180_000);
    const dataDir = tempDir("modex-sched-");
    let server = await (await ModexServer.start({ dataDir })).ready();
    try {
      const fireAt = Math.ceil((Date.now() + 6_000) / 1000) * 1000;
      const made = await server.json<{ nextFires: number[] }>("/api/triggers/schedules", {
        method: "POST",
        body: JSON.stringify({ name: "while-down", spec: "counter-loop", cron: cronAt(fireAt), missed: "run_once", input: { from: "schedule" } }),
      });
      expect(made.nextFires[0]).toBe(fireAt);
      // A second one with missed: skip, due at the same moment.
      await server.json("/api/triggers/schedules", { method: "POST", body: JSON.stringify({ name: "skipped-while-down", spec: "counter-loop", cron: cronAt(fireAt), missed: "skip" }) });
      await server.killHard();
      while (Date.now() < fireAt + 1_500) await new Promise((r) => setTimeout(r, 200));
      server = await (await ModexServer.start({ dataDir })).ready();
      const runs = async () => (await Promise.all((await instanceIds(server)).map(async (id) => ({ id, by: await startedBy(server, id) })))).filter((r) => r.by?.kind === "schedule");
      await expect.poll(async () => (await runs()).length, { timeout: 15_000 }).toBe(1);
      const [run] = await runs();
      expect(run.by).toEqual({ kind: "schedule", name: "while-down", fireAt });
      const listed = await server.json<{ name: string; lastOutcome: string; nextFires: number[] }[]>("/api/triggers/schedules");
      expect(listed.find((s) => s.name === "while-down")!.lastOutcome).toMatch(/^started \(missed/);
      expect(listed.find((s) => s.name === "skipped-while-down")!.lastOutcome).toMatch(/^skipped: due/);
      expect(listed.find((s) => s.name === "while-down")!.nextFires[0]).toBe(fireAt + 86_400_000);
      // Another kill -9 and restart: nothing is due, nothing more runs.
      await server.killHard();
      server = await (await ModexServer.start({ dataDir })).ready();
      await new Promise((r) => setTimeout(r, 1_500));
      expect((await runs()).length).toBe(1);
    } finally {
      await server.killHard();
      removeDir(dataDir);
    }
  });

  test("a per-second schedule through kill -9 at random moments: no fire time ever starts two runs", async () => {
    test.setTimeout(240_000);
    const dataDir = tempDir("modex-sched-");
    let server = await (await ModexServer.start({ dataDir })).ready();
    try {
      await server.json("/api/triggers/schedules", {
        method: "POST",
        body: JSON.stringify({ name: "every-second", spec: "counter-loop", cron: "* * * * * *", overlap: "allow", missed: "run_once" }),
      });
      for (let round = 0; round < 4; round++) {
        await new Promise((r) => setTimeout(r, 1_200 + Math.random() * 1_500));
        await server.killHard();
        server = await (await ModexServer.start({ dataDir })).ready();
      }
      await new Promise((r) => setTimeout(r, 1_500));
      await server.json("/api/triggers/schedules/every-second/pause", { method: "POST" });
      const fires = (await Promise.all((await instanceIds(server)).map((id) => startedBy(server, id)))).filter((b) => b?.kind === "schedule").map((b) => b!.fireAt!);
      expect(fires.length).toBeGreaterThanOrEqual(4);
      expect(new Set(fires).size, `fire times: ${fires.map((f) => new Date(f).toISOString()).join(", ")}`).toBe(fires.length);
    } finally {
      await server.killHard();
      removeDir(dataDir);
    }
  });
});

test.describe("webhooks over HTTP", () => {
  const base = () => `http://127.0.0.1:${process.env.MODEX_E2E_PORT}`;
  const modex = () => ({ authorization: `Bearer ${accessToken()}`, "content-type": "application/json" });

  test("a signed POST without the Modex token starts a run (202); ?wait= answers its result; the rest of the API still wants the token", async () => {
    const name = `e2e-hook-${Date.now()}`;
    const made = await fetch(`${base()}/api/triggers/hooks`, { method: "POST", headers: modex(), body: JSON.stringify({ name, spec: "counter-loop", maxBodyBytes: 1024, ratePerMinute: 100 }) });
    expect(made.status).toBe(201);
    const { secret, path } = (await made.json()) as { secret: string; path: string };
    const body = JSON.stringify({ ref: "refs/heads/main" });
    const sign = (b: string) => `sha256=${createHmac("sha256", secret).update(b).digest("hex")}`;
    const post = (b: string, headers: Record<string, string>, query = "") => fetch(`${base()}${path}${query}`, { method: "POST", body: b, headers: { "content-type": "application/json", ...headers } });

    const accepted = await post(body, { "x-modex-signature": sign(body) });
    expect(accepted.status).toBe(202);
    const { instanceId } = (await accepted.json()) as { instanceId: string };
    expect(instanceId).toBeTruthy();
    const waited = await post(body, { "x-modex-signature": sign(body) }, "?wait=10");
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ status: "completed", finished: true });
    expect((await post(body, {})).status).toBe(401);
    expect((await post(body, { authorization: `Bearer ${accessToken()}` })).status).toBe(401);
    const big = JSON.stringify({ x: "y".repeat(2_000) });
    expect((await post(big, { "x-modex-signature": sign(big) })).status).toBe(413);
    expect((await fetch(`${base()}/api/hooks/no-such-hook`, { method: "POST", body: "{}" })).status).toBe(404);
    // Everything else is as before: no token, 401.
    expect((await fetch(`${base()}/api/graphs/instances`)).status).toBe(401);
    expect((await fetch(`${base()}/api/triggers/hooks`)).status).toBe(401);
    const view = await fetch(`${base()}/api/trpc/triggers.startedBy?input=${encodeURIComponent(JSON.stringify({ instanceId }))}`, { headers: modex() });
    expect(((await view.json()) as { result: { data: unknown } }).result.data).toEqual({ kind: "webhook", name });
  });
});

test("the Triggers page: make a schedule and see its next fires, make a webhook and see its secret once, rotate, delete; the instance says what started it", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page);
  await page.goto("/triggers");
  await page.getByRole("link", { name: "Triggers" }).waitFor();
  // A title and a line saying what the page is for, as on the other pages; its sections under it.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Triggers");
  await expect(page.getByRole("heading", { level: 1 }).locator("+ p")).toContainText("without a person pressing Run");
  await expect(page.getByRole("heading", { level: 2, name: "Schedules" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Webhooks" })).toBeVisible();
  const name = `ui-${Date.now()}`;
  // No other test makes a schedule on this server: the empty state shows, its YAML key as code, not in backticks.
  const noSchedules = page.getByTestId("empty-state").filter({ hasText: "No schedules" });
  await expect(noSchedules.locator("code").first()).toHaveText("schedules:");
  await expect(noSchedules).not.toContainText("`");

  await page.getByRole("button", { name: "New schedule" }).click();
  await page.getByLabel("Schedule name").fill(name);
  await page.getByLabel("Schedule graph").selectOption("counter-loop");
  await page.getByLabel("Cron expression").fill("30 8 * * 1-5");
  await page.getByLabel("Time zone").fill("Asia/Tokyo");
  await page.getByRole("button", { name: "Save schedule" }).click();
  const row = page.locator(`[data-testid=schedule-row][data-name="${name}"]`);
  await expect(row).toContainText("30 8 * * 1-5");
  // Its graph links to the graph, and its table's header is the lists' one (e2e/page-polish.spec.ts compares the looks).
  await expect(row.getByTestId("trigger-graph")).toHaveAttribute("href", "/graphs/counter-loop");
  await expect(page.getByTestId("table-head").first()).toContainText("Graph");
  await expect(row.getByTestId("next-fires").locator("time")).toHaveCount(3);
  await row.getByRole("button", { name: "Pause" }).click();
  await expect(row.getByTestId("next-fires")).toHaveText("paused");
  await row.getByRole("button", { name: "Resume" }).click();
  await expect(row.getByTestId("next-fires").locator("time")).toHaveCount(3);

  await page.getByRole("button", { name: "New webhook" }).click();
  await page.getByLabel("Hook name").fill(name);
  await page.getByLabel("Hook graph").selectOption("counter-loop");
  await page.getByLabel("Hook auth").selectOption("bearer");
  await page.getByRole("button", { name: "Create webhook" }).click();
  const secret = (await page.getByTestId("hook-secret-value").textContent())!.trim();
  expect(secret).toHaveLength(43);
  // The card says where to post, whole, with a way to copy it and the secret.
  await expect(page.getByTestId("hook-secret-url")).toHaveText(`POST ${new URL(page.url()).origin}/api/hooks/${name}`);
  await expect(page.getByTestId("hook-secret").getByRole("button", { name: /^Copy secret / })).toBeVisible();
  await expect(page.getByTestId("hook-secret").getByRole("button", { name: /^Copy URL / })).toBeVisible();
  const hookRow = page.locator(`[data-testid=hook-row][data-name="${name}"]`);
  await expect(hookRow).toContainText(`POST /api/hooks/${name}`);
  await page.screenshot({ path: "e2e/screenshots/triggers.png", fullPage: true });

  // A run started by the hook says so in its summary.
  const started = await page.request.post(`/api/hooks/${name}`, { data: { n: 1 }, headers: { authorization: `Bearer ${secret}` } });
  expect(started.status()).toBe(202);
  const { instanceId } = (await started.json()) as { instanceId: string };
  await page.goto(`/instances/${instanceId}`);
  await expect(page.getByTestId("started-by")).toHaveText(`webhook ${name}`);

  await page.goto("/triggers");
  await hookRow.getByRole("button", { name: "Rotate secret" }).click();
  await expect(page.getByTestId("hook-secret-value")).not.toHaveText(secret);
  expect((await page.request.post(`/api/hooks/${name}`, { data: {}, headers: { authorization: `Bearer ${secret}` } })).status()).toBe(401);
  await hookRow.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(hookRow).toHaveCount(0);
  await row.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(row).toHaveCount(0);
});
