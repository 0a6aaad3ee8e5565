import { expect, test } from "@playwright/test";
import { accessToken } from "./support/session";

test("without a session, a page leads to the login page, which signs in with the access token", async ({ page }) => {
  await page.goto("/graphs");
  await expect(page).toHaveURL(/\/login\?next=%2Fgraphs/);
  await expect(page.getByRole("heading", { name: "Sign in to Modex" })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/login.png" });

  await page.getByLabel("Access token").fill("not-the-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  // Next's route announcer is an alert too: look for the form's own.
  await expect(page.getByRole("alert").filter({ hasText: "not accepted" })).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/login-error.png" });

  await page.getByLabel("Access token").fill(accessToken());
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/graphs$/);
  await expect(page.getByRole("heading", { name: "Graphs", level: 1 })).toBeVisible();

  // Signed in, the login page (a bookmark, the back button) does not ask again: it goes where it leads.
  await page.goto("/login?next=%2Finstances");
  await expect(page).toHaveURL(/\/instances$/);
  await expect(page.getByRole("heading", { name: "Instances", level: 1 })).toBeVisible();
});
