import { expect, test, type Page } from "@playwright/test";
import { isSummaryRequest, requestsOf } from "./support/model-requests";
import { auth, signIn } from "./support/session";

test.describe.configure({ timeout: 180_000 });

test("a long chat: over the agent's memory budget, older messages are summarized — a divider shows it, the next request holds the summary", async ({ page, request }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const tag = `zebra${Date.now().toString(36)}`;
  // An agent with the smallest budget: three long messages break it.
  const yaml = `name: e2e-longchat\ndescription: A chat agent with a small context budget.\ninstructions: Answer.\nmemory:\n  max_context_tokens: 500\n  keep_recent_messages: 2\n`;
  expect((await request.put("/api/agents/e2e-longchat", { headers: { ...auth(), "content-type": "application/yaml" }, data: yaml })).status()).toBe(200);
  const opened = await request.post("/api/chat", { headers: auth(), data: { agent: "e2e-longchat", title: "Long chat" } });
  expect(opened.status()).toBe(201);
  const { sessionId } = (await opened.json()) as { sessionId: string };

  await signIn(page);
  await page.goto(`/chat?session=${sessionId}`);
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  const turns = page.getByTestId("chat-turn");
  const filler = "the quick brown fox jumps over the lazy dog ".repeat(10);
  for (let i = 1; i <= 3; i++) {
    await box.fill(`message ${i} ${tag} ${filler}`);
    await box.press("Enter");
    await expect(turns.nth(i - 1)).toHaveAttribute("data-state", "completed", { timeout: 30_000 });
  }

  // The divider, where the cleanup happened; every message is still shown.
  const divider = page.getByTestId("chat-summary-divider");
  await expect(divider).toHaveCount(1);
  await expect(divider.getByTestId("chat-summary-label")).toHaveText(/^Earlier messages summarized — \d+ messages, ~[\d,]+ tokens$/);
  await expect(turns).toHaveCount(3);
  await expect(turns.first().getByTestId("chat-user")).toContainText(`message 1 ${tag}`);
  await divider.getByTestId("chat-summary-label").click();
  await expect(divider.getByTestId("chat-summary-text")).toContainText(`the user wrote "message 1 ${tag}`);

  // The model was asked for the summary once; the request after it holds the summary, not the first message.
  const sent = await requestsOf(page, tag);
  expect(sent.filter(isSummaryRequest)).toHaveLength(1);
  const afterSummary = sent.filter((r) => !isSummaryRequest(r)).at(-1)!;
  expect(afterSummary.messages.some((m) => (m.content ?? "").startsWith("<conversation-summary>"))).toBe(true);
  expect(afterSummary.messages.some((m) => (m.content ?? "").startsWith(`message 1 ${tag}`))).toBe(false);
  expect(afterSummary.messages.at(-1)?.content).toContain(`message 3 ${tag}`);

  // REST carries the marker too (what modexctl chat prints).
  const events = (await (await request.get(`/api/chat/${sessionId}/events?after=0`, { headers: auth() })).json()) as { events?: Array<{ type: string }> } | Array<{ type: string }>;
  const list = Array.isArray(events) ? events : (events.events ?? []);
  expect(list.some((e) => e.type === "context_summarized")).toBe(true);

  // The turn's trace has the memory cleanup span.
  await page.getByTestId("chat-trace-link").nth(await turnWithDivider(page)).click();
  const span = page.locator('[data-testid="trace-span"][data-kind="memory"]');
  await expect(span).toContainText("memory cleanup", { timeout: 15_000 });
  await expect(span.getByTestId("trace-memory-tokens")).toHaveText(/~[\d,]+ → ~[\d,]+ tokens/);
  await page.setViewportSize({ width: 1440, height: 860 });
  await page.screenshot({ path: "e2e/screenshots/chat-summary-trace-1440.png" });

  // Screenshots: 1024 and 1440, light and dark, with the summary open.
  await page.goto(`/chat?session=${sessionId}`);
  await page.getByTestId("chat-summary-label").click();
  for (const scheme of ["light", "dark"] as const) {
    await page.evaluate((s) => localStorage.setItem("modex-theme", s), scheme);
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 860 });
      await page.reload();
      await page.getByTestId("chat-summary-label").click();
      await page.getByTestId("chat-summary-divider").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `e2e/screenshots/chat-summary-${width}-${scheme}.png` });
    }
  }
  expect(pageErrors).toEqual([]);
});

/** The index of the turn whose top has the divider (its trace link is the one to follow). */
async function turnWithDivider(page: Page): Promise<number> {
  const turns = page.getByTestId("chat-turn");
  const n = await turns.count();
  for (let i = 0; i < n; i++) if ((await turns.nth(i).getByTestId("chat-summary-divider").count()) > 0) return i;
  throw new Error("no turn has the divider");
}
