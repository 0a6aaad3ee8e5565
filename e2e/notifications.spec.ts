import { createHmac } from "node:crypto";
import { expect, test } from "@playwright/test";
import { httpReceiver } from "../server/services/testing/http-receiver";
import { create, quickSpec } from "./support/runs";
import { saveSpec, signIn } from "./support/session";

/** Outgoing notifications from the Triggers page, against the production server and a receiver this test starts. */
test("the Triggers page: add a notification, run its graph, see the signed delivery answered 200 in its Deliveries", async ({ page }) => {
  test.setTimeout(60_000);
  await using receiver = await httpReceiver();
  const graph = `notified-${Date.now()}`;
  await saveSpec(page.request, quickSpec(graph));
  await signIn(page);
  await page.goto("/triggers");
  const section = page.getByTestId("notifications-section");
  await expect(section.getByRole("heading", { level: 2, name: "Notifications" })).toBeVisible();

  await section.getByRole("button", { name: "New notification" }).click();
  const dialog = page.getByRole("dialog", { name: "New notification" });
  await page.getByLabel("Notification URL").fill("ftp://example.com/hook");
  await dialog.getByRole("button", { name: "Create notification" }).click();
  await expect(dialog.getByTestId("trigger-form-error")).toHaveText("url must be http:// or https://, not ftp://");
  await page.getByLabel("Notification URL").fill(receiver.url);
  await page.getByLabel("Event failed").uncheck();
  await page.getByLabel("Event waiting").uncheck();
  await page.getByLabel("Event completed").check();
  await page.getByLabel("Notification graph").selectOption(graph);
  await page.getByRole("button", { name: "Create notification" }).click();
  const secret = (await section.getByTestId("notification-secret-value").textContent())!.trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  const row = section.getByTestId("notification-row").filter({ hasText: receiver.url });
  await expect(row).toContainText("completed");
  await expect(row).toContainText(graph);

  const instanceId = await create(page.request, graph, "hi");
  const [got] = await receiver.waitFor(1, 15_000);
  expect(JSON.parse(got.body)).toMatchObject({ event: "completed", instance_id: instanceId, graph, status: "completed" });
  expect(got.headers["x-modex-signature"]).toBe(`sha256=${createHmac("sha256", secret).update(got.body).digest("hex")}`);

  await row.getByRole("button", { name: "Deliveries" }).click();
  const delivery = section.getByTestId("delivery-row").filter({ hasText: instanceId });
  await expect(delivery.getByTestId("delivery-state")).toHaveText("delivered · 200");
  await expect(delivery).toContainText("1 attempt");

  await row.getByRole("button", { name: "Send test" }).click();
  await expect(section.getByTestId("delivery-row").filter({ hasText: "test" }).first().getByTestId("delivery-state")).toHaveText("delivered · 200");
  expect(receiver.received.map((r) => r.headers["x-modex-event"])).toEqual(["completed", "test"]);
});
