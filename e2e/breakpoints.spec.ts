import { expect, test } from "@playwright/test";
import { accessToken, signIn } from "./support/session";

test("breakpoints: the run pauses before a checked node, Step runs one node, Continue finishes", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page);
  const res = await page.request.post("/api/graphs/instances", {
    data: { spec: "paced-pipeline", input: "bp", breakpoints: ["transform"] },
    headers: { authorization: `Bearer ${accessToken()}` },
  });
  expect(res.status()).toBe(201);
  const { instanceId } = (await res.json()) as { instanceId: string };

  await page.goto(`/instances/${instanceId}`);
  const view = page.getByTestId("instance-view");
  await expect(view).toHaveAttribute("data-status", "paused", { timeout: 30_000 });
  const panel = page.getByRole("region", { name: "Breakpoints" });
  await expect(panel.getByRole("status")).toHaveText(/Paused before\s*transform/);
  await expect(panel.getByLabel("Pause before transform")).toBeChecked();
  await page.screenshot({ path: "e2e/screenshots/instance-breakpoint.png" });

  // Step: transform runs, the run pauses again before the next node.
  await panel.getByRole("button", { name: "Step" }).click();
  await expect(panel.getByRole("status")).toHaveText(/Paused before\s*pace_publish/, { timeout: 15_000 });

  // A breakpoint set now (on publish) holds the run once more; Continue passes it.
  await panel.getByLabel("Pause before publish").check();
  await expect(panel.getByLabel("Pause before publish")).toBeChecked();
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(panel.getByRole("status")).toHaveText(/Paused before\s*publish/, { timeout: 15_000 });
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(page.getByTestId("instance-result")).toHaveText("published ITEM BP");
  await expect(panel.getByLabel("Pause before publish")).toBeDisabled();
});
