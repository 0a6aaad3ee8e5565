import { expect, test } from "@playwright/test";
import { modexctl } from "./support/modexctl";
import { auth, signIn } from "./support/session";

// The Traces page lists every finished agent turn (chats and graph runs); the stand-in model answers.
test.describe.configure({ timeout: 180_000 });

interface TurnRow {
  turnId: string;
  agent: string;
  source: { kind: "chat"; sessionId: string; title: string | null } | { kind: "node"; instanceId: string; node: string; graph: string | null };
  stopReason: string | null;
  inputTokens: number;
}

test("the Traces list: a graph run's agent turns and a chat's turn, newest first, filtered and paged; a row opens its trace", async ({ page, baseURL }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const request = page.request;
  const title = `Traces list check ${Date.now()}`;
  const run = await request.post("/api/graphs/instances", { headers: auth(), data: { spec: "review-cycle", input: "Write add(a, b)." } });
  const { instanceId } = (await run.json()) as { instanceId: string };
  await expect.poll(async () => (await (await request.get(`/api/graphs/instances/${instanceId}`, { headers: auth() })).json()).summary.status, { timeout: 60_000 }).toBe("completed");
  const chat = (await (await request.post("/api/chat", { headers: auth(), data: {} })).json()) as { sessionId: string };
  expect((await request.post(`/api/chat/${chat.sessionId}/messages`, { headers: auth(), data: { message: title } })).status()).toBeLessThan(300);
  const recent = async (query: string) => (await (await request.get(`/api/traces?${query}`, { headers: auth() })).json()) as { turns: TurnRow[]; nextCursor: string | null };
  await expect.poll(async () => (await recent("source=chat&limit=50")).turns.some((t) => t.source.kind === "chat" && t.source.sessionId === chat.sessionId), { timeout: 30_000 }).toBe(true);

  // REST: the run's turns (the coder twice, the reviewer twice), each with its graph and tokens.
  const ofRun = (await recent("source=node&limit=200")).turns.filter((t) => t.source.kind === "node" && t.source.instanceId === instanceId);
  expect(ofRun.map((t) => (t.source.kind === "node" ? t.source.node : "")).sort()).toEqual(["coder", "coder", "reviewer", "reviewer"]);
  for (const t of ofRun) expect(t).toMatchObject({ source: { graph: "review-cycle" }, stopReason: "completed" });
  expect(ofRun.every((t) => t.inputTokens > 0)).toBe(true);
  // Paged: two pages of two are the first four of one page of four.
  const first = await recent("limit=2");
  expect(first.turns).toHaveLength(2);
  const second = await recent(`limit=2&cursor=${first.nextCursor}`);
  expect([...first.turns, ...second.turns].map((t) => t.turnId)).toEqual((await recent("limit=4")).turns.map((t) => t.turnId));
  const bad = await request.get("/api/traces?cursor=yesterday", { headers: auth() });
  expect(bad.status()).toBe(400);
  expect(await bad.text()).toContain("nextCursor");

  // modexctl lists them too, and says how to get the next page.
  const cli = await modexctl(baseURL!, "traces", "--source", "node", "--limit", "2");
  expect(cli.code).toBe(0);
  expect(cli.stdout).toMatch(/STARTED\s+WHERE\s+AGENT\s+ENDED\s+TOKENS\s+DURATION\s+TURN/);
  expect(cli.stdout).toContain(`run ${instanceId} review-cycle · reviewer`);
  expect(cli.stdout).toMatch(/more: modexctl traces --cursor \d+\.[0-9a-f]{16} --source node/);

  // Newest first: the chat's turn (sent after the run ended) comes before the run's.
  const order = (await recent("limit=200")).turns.map((t) => (t.source.kind === "chat" ? t.source.sessionId : t.source.instanceId));
  expect(order.indexOf(chat.sessionId)).toBeGreaterThanOrEqual(0);
  expect(order.indexOf(chat.sessionId)).toBeLessThan(order.indexOf(instanceId));

  // The page lists both; the filters narrow it.
  await page.goto("/traces");
  const rows = page.getByTestId("trace-row");
  const chatRow = rows.filter({ hasText: title });
  await expect(chatRow).toHaveCount(1);
  await expect(chatRow).toHaveAttribute("data-source", "chat");
  await expect(rows.filter({ hasText: instanceId })).toHaveCount(4);
  await page.screenshot({ path: "e2e/screenshots/traces-list.png" });
  await page.getByRole("tab", { name: "Graph runs" }).click();
  await expect(page).toHaveURL(/\/traces\?source=node$/);
  await expect(rows.filter({ hasText: instanceId })).toHaveCount(4);
  await expect(chatRow).toHaveCount(0);
  await page.getByRole("checkbox", { name: "Failed only" }).check();
  await expect(page).toHaveURL(/errors=1/);
  await expect(rows.filter({ hasText: instanceId })).toHaveCount(0);
  await page.getByRole("tab", { name: "Chats" }).click();
  await page.getByRole("checkbox", { name: "Failed only" }).uncheck();
  await expect(page).toHaveURL(/\/traces\?source=chat$/);
  await expect(chatRow).toHaveCount(1);
  await expect(rows.filter({ hasText: instanceId })).toHaveCount(0);

  // The tabs are one Tab stop, the selected one; the arrow keys move the selection along (and round) the row.
  const tab = (name: string) => page.getByRole("tab", { name });
  await expect(tab("Chats")).toHaveAttribute("tabindex", "0");
  await expect(tab("All turns")).toHaveAttribute("tabindex", "-1");
  await tab("Chats").focus();
  await page.keyboard.press("ArrowLeft");
  await expect(tab("All turns")).toBeFocused();
  await expect(tab("All turns")).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(/\/traces$/);
  await page.keyboard.press("ArrowLeft");
  await expect(tab("Graph runs")).toBeFocused();
  await expect(page).toHaveURL(/\/traces\?source=node$/);
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowRight");
  await expect(tab("Chats")).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(/\/traces\?source=chat$/);

  // A row opens the turn's waterfall; "All traces" leads back.
  await chatRow.click();
  await expect(page).toHaveURL(new RegExp(`/traces\\?session=${chat.sessionId}&turn=`));
  await expect(page.getByTestId("trace-span").first()).toContainText("invoke_agent", { timeout: 20_000 });
  await page.getByRole("link", { name: "← All traces" }).click();
  await expect(page.getByTestId("trace-list")).toBeVisible();
  expect(pageErrors).toEqual([]);
});
