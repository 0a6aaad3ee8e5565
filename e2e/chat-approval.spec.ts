import { expect, type Page, test } from "@playwright/test";
import { signIn } from "./support/session";

test.describe.configure({ timeout: 90_000 });

/** Sends "run <spec>" in a new chat: the stand-in model answers with a run_graph call, which waits for approval. */
async function askToRun(page: Page, spec: string) {
  await signIn(page);
  await page.goto("/chat");
  await expect(page.getByTestId("chat-model")).toHaveText("fake-echo");
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill(`run ${spec}`);
  await box.press("Enter");
  await expect(page).toHaveURL(/\/chat\?session=\d+$/);
  const turn = page.getByTestId("chat-turn").first();
  const card = turn.getByTestId("chat-approval");
  await expect(card).toHaveAttribute("data-state", "pending", { timeout: 20_000 });
  await expect(turn).toHaveAttribute("data-state", "waiting");
  await expect(card).toContainText("run_graph");
  await expect(card.getByTestId("chat-approval-arguments")).toHaveText(`{\n  "name": "${spec}"\n}`);
  // While the turn waits, the composer says so: a message sent now would be queued behind the turn.
  await expect(page.getByTestId("chat-waiting")).toContainText("waiting for your approval");
  await expect(page.getByTestId("chat-waiting")).toContainText("queued behind it");
  await box.fill("later");
  await expect(page.getByRole("button", { name: "Queue" })).toBeEnabled();
  await box.fill("");
  return { turn, card, box };
}

test("chat approval: run_graph waits for Approve, then starts the run and links to its instance", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const { turn, card, box } = await askToRun(page, "counter-loop");
  await card.screenshot({ path: "e2e/screenshots/chat-approval-pending.png" });
  await page.screenshot({ path: "e2e/screenshots/chat-approval-pending-page.png" });

  await card.getByRole("button", { name: "Approve" }).click();
  await expect(card).toHaveAttribute("data-state", "approved");
  await expect(card.getByTestId("chat-approval-decision")).toHaveText(/^Approved by you at \d\d:\d\d:\d\d$/);
  await expect(turn).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  const result = card.getByTestId("chat-approval-result");
  await expect(result).toContainText(/Started instance \d+/);
  const instanceId = (await result.locator(".font-mono").textContent())!;
  await expect(turn.getByTestId("chat-answer")).toHaveText(`The run has started as instance ${instanceId}.`);
  await expect(page.getByTestId("chat-waiting")).toHaveCount(0);
  await expect(box).toBeEnabled();
  await card.screenshot({ path: "e2e/screenshots/chat-approval-approved.png" });

  // The decision is part of the chat: a reload shows the decided card, not the buttons.
  await page.reload();
  const reloaded = page.getByTestId("chat-approval");
  await expect(reloaded).toHaveAttribute("data-state", "approved", { timeout: 20_000 });
  await expect(reloaded.getByRole("button", { name: "Approve" })).toHaveCount(0);

  // The result links to the instance it started, which ran to its end.
  await reloaded.getByRole("link", { name: "Open instance →" }).click();
  await expect(page).toHaveURL(new RegExp(`/instances/${instanceId}$`));
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("instance-result")).toContainText("counted to 5");
  expect(pageErrors).toEqual([]);
});

test("chat approval: Deny with a reason: nothing runs, the model is told, the chat goes on", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const { turn, card, box } = await askToRun(page, "map-reduce");

  await card.getByRole("button", { name: "Deny…" }).click();
  await card.getByLabel("Reason for denying (optional)").fill("not before the review");
  await card.screenshot({ path: "e2e/screenshots/chat-approval-denying.png" });
  await card.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(card).toHaveAttribute("data-state", "denied");
  await expect(card.getByTestId("chat-approval-decision")).toHaveText(/^Denied by you at \d\d:\d\d:\d\d — “not before the review”$/);
  await expect(turn).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turn.getByTestId("chat-answer")).toHaveText("Understood: I did not start the run.");
  await expect(card.getByTestId("chat-approval-result")).toHaveCount(0);
  await card.screenshot({ path: "e2e/screenshots/chat-approval-denied.png" });

  // The chat is usable again.
  await expect(box).toBeEnabled();
  await box.fill("hello again");
  await box.press("Enter");
  await expect(page.getByTestId("chat-turn").nth(1)).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  expect(pageErrors).toEqual([]);
});
