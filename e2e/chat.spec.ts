import { expect, test } from "@playwright/test";
import { signIn } from "./support/session";

test.describe.configure({ timeout: 90_000 });

test("chat with the agent: answers stream in, a tool call shows, Stop cancels, chats are listed", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  await page.goto("/chat");
  await expect(page.getByTestId("chat-model")).toHaveText("fake-echo");
  await page.screenshot({ path: "e2e/screenshots/chat-empty.png" });

  // A message is one agent turn; its answer streams in and the turn completes.
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("hello there");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/chat\?session=\d+$/);
  const turns = page.getByTestId("chat-turn");
  await expect(turns.first()).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turns.first().getByTestId("chat-answer")).toHaveText("You said: hello there. Modex is listening.");

  // The model calls the todo tool, then answers: the tool shows with its result. Reminded of the open
  // todos (todo_continuation), the demo model completes them and says so, once.
  await box.fill("plan my offsite");
  await box.press("Enter");
  await expect(turns.nth(1)).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  const tool = turns.nth(1).getByTestId("chat-tool").first();
  await expect(tool).toContainText("✓ todo_write");
  await tool.click();
  await expect(tool).toContainText("Todo list saved: 2 items, 2 open.");
  // What it said after the tool call saw the conversation so far.
  await expect(turns.nth(1).getByTestId("chat-text").nth(1)).toContainText("You said: plan my offsite.");
  await expect(turns.nth(1).getByTestId("chat-answer")).toHaveText("Done: outline the day, book the room.");

  // A long answer: Stop cancels it through the control plane and keeps what streamed.
  await box.fill("slow story please");
  await box.press("Enter");
  await expect(turns.nth(2).getByTestId("chat-answer")).toContainText("word3", { timeout: 20_000 });
  await page.screenshot({ path: "e2e/screenshots/chat-streaming.png" });
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(turns.nth(2)).toHaveAttribute("data-state", "stopped", { timeout: 20_000 });
  await expect(turns.nth(2).getByTestId("chat-note")).toHaveText("Stopped.");
  await expect(turns.nth(2).getByTestId("chat-answer")).toContainText("word3");
  await expect(turns.nth(2).getByTestId("chat-answer")).not.toContainText("word399");
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
  // The stand-in model's usage comes in the stream's last chunk, which the stop cut off: the footer shows an estimate, labelled.
  await expect(turns.nth(2).getByTestId("chat-usage")).toHaveText(/^~[\d,]+ tokens \(estimated: ~[\d,]+ in · ~[\d,]+ out\)$/);
  await expect(turns.first().getByTestId("chat-usage")).toHaveText("15 tokens (10 in · 5 out)");

  // The chat is listed, and reloading the page replays it.
  await expect(page.getByTestId("chat-session").first()).toContainText("hello there");
  await page.reload();
  await expect(page.getByTestId("chat-turn")).toHaveCount(3, { timeout: 20_000 });
  await page.screenshot({ path: "e2e/screenshots/chat.png" });

  // The stopped turn's trace: the model call it cut short reads "stopped", not a red "error".
  await turns.nth(2).getByTestId("chat-trace-link").click();
  const modelCall = page.locator("[data-testid=trace-span][data-kind=model]");
  await expect(modelCall.getByTestId("trace-span-stopped")).toHaveText("stopped", { timeout: 20_000 });
  await expect(modelCall).not.toContainText("error");
  // Its tokens are the estimate too, labelled, and so is the trace's total (not "0 tokens").
  await expect(modelCall.getByTestId("trace-tokens")).toHaveText(/^~[\d,]+ tokens \(estimated\)$/);
  await expect(page.getByTestId("trace-summary-tokens")).toHaveText(/^~[\d,]+ tokens \(estimated\)$/);
  await page.screenshot({ path: "e2e/screenshots/trace-stopped-estimate.png" });
  expect(pageErrors).toEqual([]);
});
