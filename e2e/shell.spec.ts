import { expect, type Page, test } from "@playwright/test";
import { accessToken, saveSpec, signIn } from "./support/session";

/** Issue 17, the shell: sign-in and out, the Graphs list's row actions, the favicon, both themes, the home page. */
test.describe.configure({ timeout: 90_000 });

const uid = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
const bearer = { authorization: `Bearer ${accessToken()}` };

async function trpc<T>(page: Page, proc: string, input: unknown, kind: "query" | "mutation" = "mutation"): Promise<T> {
  const res =
    kind === "mutation"
      ? await page.request.post(`/api/trpc/${proc}`, { data: input, headers: bearer })
      : await page.request.get(`/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: bearer });
  const body = (await res.json()) as { result?: { data: T }; error?: { message: string } };
  if (!body.result) throw new Error(`${proc}: ${body.error?.message}`);
  return body.result.data;
}

test("a wrong token in the login link shows the error, and signed-out pages show no navigation or engine status", async ({ page }) => {
  await page.goto("/api/auth/login?token=not-the-right-token&next=%2Fgraphs");
  await expect(page).toHaveURL(/\/login\?error=invalid/);
  await expect(page.getByRole("alert").filter({ hasText: "link’s token was not accepted" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
  await expect(page.getByTestId("engine-status")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/login-link-error-1280.png" });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: "e2e/screenshots/login-link-error-1920.png" });

  // The right token from the form still signs in, and goes where the link wanted.
  await page.getByLabel("Access token").fill(accessToken());
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/graphs$/);
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByTestId("engine-status")).toBeVisible();
});

test("Sign out ends the session on the server: the old cookie is refused afterwards", async ({ page }) => {
  await signIn(page);
  await page.goto("/graphs");
  const cookies = await page.context().cookies();
  const cookieHeader = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  expect((await page.request.get("/api/trpc/specs.list", { headers: { cookie: cookieHeader } })).status()).toBe(200);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
  await page.goto("/instances");
  await expect(page).toHaveURL(/\/login\?next=%2Finstances/);
  // The copied cookie is revoked, not merely deleted from this browser.
  const again = await page.request.fetch("/api/trpc/specs.list", { headers: { cookie: cookieHeader } });
  expect(again.status()).toBe(401);
});

test("Graphs list: a Run button per row, a copy button for the id, the revision count as the version", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const name = `e2e-row-${uid()}`;
  const v1 = `name: ${name}\nversion: "3.1"\nnodes:\n  - name: echo\n    node_type: function\n    config: { op: identity }\nedges:\n  - { from: __start__, to: echo }\n  - { from: echo, to: __end__ }\n`;
  await saveSpec(page.request, v1);
  await saveSpec(page.request, v1.replace("op: identity", "op: template, template: \"{{input}}!\""));
  await signIn(page);
  await page.goto("/graphs");
  const row = page.getByTestId("spec-row").filter({ hasText: name });
  await expect(row.getByTestId("spec-revisions")).toContainText("2 revisions");
  await expect(row.getByTestId("spec-revisions")).toContainText("v3.1");

  const latest = await trpc<{ specId: string }>(page, "specs.get", { spec: name }, "query");
  await row.hover();
  await row.getByRole("button", { name: `Copy id ${latest.specId}` }).click();
  await expect(row.getByTestId("copy-button")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(latest.specId);
  await page.screenshot({ path: "e2e/screenshots/graphs-row-actions-1280.png" });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: "e2e/screenshots/graphs-row-actions-1920.png" });
  await page.setViewportSize({ width: 1280, height: 800 });

  await row.getByRole("button", { name: `Run ${name}` }).click();
  await page.getByRole("textbox", { name: /Input/ }).fill('"hello"');
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page).toHaveURL(/\/instances\/[\w-]+$/);
  const instanceId = decodeURIComponent(page.url().split("/").pop() ?? "");
  const detail = await trpc<{ summary: { graphName: string } }>(page, "instances.get", { instanceId }, "query");
  expect(detail.summary.graphName).toBe(name);
});

test("the favicon is served from public/ (no session needed) and named by every page", async ({ page }) => {
  const svg = await page.request.get("/favicon.svg");
  expect(svg.status()).toBe(200);
  expect(svg.headers()["content-type"]).toContain("image/svg+xml");
  const ico = await page.request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect((await ico.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  await page.goto("/login");
  await expect(page.locator('link[rel="icon"][href="/favicon.svg"]')).toHaveCount(1);
});

/** WCAG contrast ratio of two computed CSS colours (oklch and rgb both resolved through a canvas). */
async function contrast(page: Page, fgSelector: string, bgSelector: string): Promise<number> {
  return page.evaluate(
    ({ fgSelector, bgSelector }) => {
      const rgb = (css: string) => {
        const c = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
        c.fillStyle = css;
        c.fillRect(0, 0, 1, 1);
        const [r, g, b] = c.getImageData(0, 0, 1, 1).data;
        return [r, g, b].map((v) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
      };
      const lum = (css: string) => {
        const [r, g, b] = rgb(css);
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const fg = getComputedStyle(document.querySelector(fgSelector) as Element).color;
      const bg = getComputedStyle(document.querySelector(bgSelector) as Element).backgroundColor;
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      return (a + 0.05) / (b + 0.05);
    },
    { fgSelector, bgSelector },
  );
}

for (const scheme of ["light", "dark"] as const) {
  test(`the ${scheme} theme follows the system preference, with readable contrast`, async ({ browser }) => {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page);
    await page.goto("/graphs");
    await expect(page.getByTestId("spec-row").first()).toBeVisible();
    const bodyBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const lightBody = await page.evaluate((bg) => {
      const c = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
      c.fillStyle = bg;
      c.fillRect(0, 0, 1, 1);
      return c.getImageData(0, 0, 1, 1).data[0] > 128;
    }, bodyBg);
    expect(lightBody).toBe(scheme === "light");
    expect(await contrast(page, "h1", "body")).toBeGreaterThanOrEqual(7);
    expect(await contrast(page, "main p", "body")).toBeGreaterThanOrEqual(4.5); // the muted subtitle
    await page.screenshot({ path: `e2e/screenshots/theme-${scheme}-graphs-1280.png` });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: `e2e/screenshots/theme-${scheme}-graphs-1920.png` });
    await page.goto("/graphs/map-reduce");
    await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("spec-preview")).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
    await page.screenshot({ path: `e2e/screenshots/theme-${scheme}-editor-1920.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: `e2e/screenshots/theme-${scheme}-editor-1280.png` });
    // The agent editor's YAML pane is the editor's colour in both themes (no dark strip beside Monaco in light).
    await page.goto("/agents?agent=assistant");
    await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
    const paneBg = await page.locator('section[aria-label="YAML"]').evaluate((el) => getComputedStyle(el).backgroundColor);
    const editorBg = await page.locator(".monaco-editor-background").first().evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(paneBg).toBe(editorBg);
    await page.goto("/");
    await page.screenshot({ path: `e2e/screenshots/theme-${scheme}-home-1280.png`, fullPage: true });
    await context.close();
  });
}

test("home shows the user's real recent runs, and the ones waiting for a person", async ({ page }) => {
  const { instanceId } = await trpc<{ instanceId: string }>(page, "instances.create", { spec: "approval-gate", input: "release 17" });
  await expect
    .poll(async () => (await trpc<{ waitingFor: unknown }>(page, "instances.get", { instanceId }, "query")).waitingFor !== null, { timeout: 20_000 })
    .toBe(true);
  await signIn(page);
  await page.goto("/");
  const waiting = page.getByTestId("home-waiting");
  await expect(waiting.getByTestId("home-run").filter({ hasText: instanceId })).toBeVisible();
  await expect(waiting.getByTestId("home-run").filter({ hasText: instanceId })).toContainText("waiting for input");
  await expect(page.getByTestId("home-recent").getByTestId("home-run").first()).toBeVisible();
  // The made-up picture is gone once there is real data.
  await expect(page.getByRole("img", { name: "A workflow graph with one agent running" })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/home-runs-1280.png", fullPage: true });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: "e2e/screenshots/home-runs-1920.png", fullPage: true });
  await waiting.getByRole("link", { name: new RegExp(instanceId) }).click();
  await expect(page).toHaveURL(new RegExp(`/instances/${instanceId}$`));
});

test("chat: text the model streamed before a tool call stays in the transcript", async ({ page }) => {
  await signIn(page);
  await page.goto("/chat");
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("plan my offsite");
  await box.press("Enter");
  const turn = page.getByTestId("chat-turn").first();
  await expect(turn).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  // Said first, then the tool, then what it said after it; then, reminded of its open todos, the demo
  // model completes them (a second todo_write) and answers. All of it stays once the turn has completed.
  await expect(turn.getByTestId("chat-text").first()).toHaveText("Planning first.");
  await expect(turn.getByTestId("chat-tool").first()).toContainText("todo_write");
  await expect(turn.getByTestId("chat-text").nth(1)).toContainText("You said: plan my offsite.");
  await expect(turn.getByTestId("chat-answer")).toHaveText("Done: outline the day, book the room.");
  const order = await turn.evaluate((el) => [...el.querySelectorAll('[data-testid="chat-text"], [data-testid="chat-tool"], [data-testid="chat-answer"]')].map((e) => e.getAttribute("data-testid")));
  expect(order).toEqual(["chat-text", "chat-tool", "chat-text", "chat-tool", "chat-answer"]);
  // And after a reload (the transcript is folded again from the stored events).
  await page.reload();
  await expect(page.getByTestId("chat-turn").first().getByTestId("chat-text").first()).toHaveText("Planning first.");
  await page.screenshot({ path: "e2e/screenshots/chat-text-before-tool.png" });
});
