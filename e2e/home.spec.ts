import { expect, test } from "@playwright/test";
import { signIn } from "./support/session";

test("home page shows the app shell and a live engine status", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));

  await signIn(page);
  await page.goto("/");

  await expect(page).toHaveTitle(/Modex/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("durable graphs");

  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Graphs" })).toHaveAttribute("href", "/graphs");
  await expect(nav.getByRole("link", { name: "Instances" })).toHaveAttribute("href", "/instances");

  // "Start here" leads to the main areas, named and linked as in the navigation.
  const start = page.getByRole("region", { name: "Start here" });
  for (const [name, href] of [
    ["Graphs", "/graphs"],
    ["Instances", "/instances"],
    ["Chat", "/chat"],
    ["Agents", "/agents"],
    ["Triggers", "/triggers"],
    ["Cluster", "/cluster"],
  ]) {
    await expect(start.getByRole("link", { name: new RegExp(`^${name}\\b`) })).toHaveAttribute("href", href);
    await expect(nav.getByRole("link", { name, exact: true })).toHaveAttribute("href", href);
  }

  // The page as the server sends it already says the engine is online (no "Connecting…" until the
  // first check); the tRPC `health` query keeps it up to date once the page has hydrated.
  const served = await (await page.request.get("/")).text();
  expect(served).toMatch(/data-testid="engine-status" data-status="ok"/);
  const status = page.getByTestId("engine-status");
  await expect(status).toHaveAttribute("data-status", "ok");
  await expect(status).toContainText(/Engine v\d+\.\d+\.\d+/);

  await page.screenshot({ path: "e2e/screenshots/home.png", fullPage: true });
  expect(pageErrors).toEqual([]);
});

test("GET /api/health answers JSON", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.ok()).toBe(true);
  expect(await response.json()).toMatchObject({ ok: true, engine: expect.any(String), time: expect.any(String) });
});

test("an unknown page is the app's own 404 inside the shell", async ({ page }) => {
  await signIn(page);
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
});
