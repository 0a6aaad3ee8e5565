import { expect, test } from "@playwright/test";
import { expectTurnTrace, signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });

test("chat controls: a message sent while a turn runs is queued as the composer says, /stop, /help, unknown commands, token usage and the turn's trace", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  await page.goto("/chat");
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("slow story please");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/chat\?session=\d+$/);
  const turns = page.getByTestId("chat-turn");
  await expect(turns.first().getByTestId("chat-answer")).toContainText("word3", { timeout: 20_000 });

  // The composer says what a message does now (QUEUE, the default busy-input mode) and sends it.
  const hint = page.getByTestId("chat-busy-hint");
  await expect(hint).toHaveAttribute("data-mode", "QUEUE");
  await expect(hint).toContainText("queued and runs when it ends");
  await box.fill("what next");
  await expect(page.getByRole("button", { name: "Queue" })).toBeEnabled();
  await box.press("Enter");
  await expect(turns.first().getByTestId("chat-notice")).toHaveText("Queued, runs when this turn ends: what next");
  await page.screenshot({ path: "e2e/screenshots/chat-queued.png" });

  // A slash command, read by the server: /stop ends the slow turn, then the queued message runs.
  await box.fill("/stop");
  await expect(page.getByTestId("chat-busy-hint")).toContainText("A command: the server runs it");
  await box.press("Enter");
  await expect(turns.first()).toHaveAttribute("data-state", "stopped", { timeout: 20_000 });
  await expect(turns.nth(1)).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turns.nth(1).getByTestId("chat-answer")).toContainText("You said: what next");

  await box.fill("/help");
  await box.press("Enter");
  await expect(page.getByTestId("chat-system").last()).toContainText("/approve [reason]");
  await box.fill("/dance");
  await box.press("Enter");
  await expect(page.getByTestId("chat-system").last()).toContainText("unknown command /dance");

  // The turn's footer: its tokens and a link to its trace (agent span, model calls).
  const footer = turns.nth(1).getByTestId("chat-turn-footer");
  await expect(footer.getByTestId("chat-usage")).toHaveText(/^[\d,]+ tokens \([\d,]+ in · [\d,]+ out\)$/);
  await footer.getByTestId("chat-trace-link").click();
  await expect(page).toHaveURL(/\/traces\?session=\d+&turn=\d+$/);
  await expectTurnTrace(page);
  await page.screenshot({ path: "e2e/screenshots/chat-trace.png" });
  expect(pageErrors).toEqual([]);
});

test("chat controls: /approve decides the tool call a turn waits on", async ({ page }) => {
  await signIn(page);
  await page.goto("/chat");
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("run counter-loop");
  await box.press("Enter");
  const turn = page.getByTestId("chat-turn").first();
  await expect(turn).toHaveAttribute("data-state", "waiting", { timeout: 20_000 });
  await box.fill("/approve go ahead");
  await box.press("Enter");
  await expect(turn.getByTestId("chat-approval")).toHaveAttribute("data-state", "approved", { timeout: 20_000 });
  await expect(turn).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turn.getByTestId("chat-notice").last()).toContainText("/approve: approved run_graph: go ahead");
});

test("chat list: search, rename and delete", async ({ page }) => {
  await signIn(page);
  const stamp = Date.now().toString(36);
  for (const topic of [`alpha ${stamp}`, `beta ${stamp}`]) {
    await page.goto("/chat");
    await page.getByRole("textbox", { name: "Message", exact: true }).fill(topic);
    await page.getByRole("textbox", { name: "Message", exact: true }).press("Enter");
    await expect(page.getByTestId("chat-turn").first()).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  }
  const search = page.getByLabel("Search chats");
  await search.fill(`alpha ${stamp}`);
  const sessions = page.getByTestId("chat-session");
  await expect(sessions).toHaveCount(1);
  await sessions.first().hover();
  await page.getByRole("button", { name: `Rename alpha ${stamp}` }).click();
  const title = page.getByLabel("Chat title");
  await title.fill(`gamma ${stamp}`);
  await title.press("Enter");
  await search.fill(`gamma ${stamp}`);
  await expect(sessions).toHaveCount(1);
  await expect(sessions.first()).toContainText(`gamma ${stamp}`);
  page.once("dialog", (d) => void d.accept());
  await sessions.first().hover();
  await page.getByRole("button", { name: `Delete gamma ${stamp}` }).click();
  await expect(sessions).toHaveCount(0);
  await search.fill(stamp);
  await expect(sessions).toHaveCount(1);
  await expect(sessions.first()).toContainText(`beta ${stamp}`);
});
