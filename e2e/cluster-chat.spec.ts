import { expect, type Page, test } from "@playwright/test";
import { PgTestDatabase } from "../server/db/pg/testing/pg-test-database";
import { type ModexServer, SERVER_TOKEN } from "./support/modex-server";
import { WebProcesses } from "./support/web-processes";

/** The stand-in model playwright.config.ts starts. */
const FAKE_LLM = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo" };

/** Signs the page in on `server` and opens the chat there. */
async function openChat(page: Page, server: ModexServer, sessionId: string): Promise<void> {
  await page.goto(`${server.url}/api/auth/login?token=${SERVER_TOKEN}&next=${encodeURIComponent(`/chat?session=${sessionId}`)}`);
  await expect(page).toHaveURL(`${server.url}/chat?session=${sessionId}`);
}

/**
 * Chats on two web processes (MODEX_ROLE=web, `npm run start`) of one real PostgreSQL database (issue
 * 19): the chat page open on web process B shows, as it streams, a turn that web process A runs; when A
 * is killed (kill -9) in the middle of a turn, B ends that turn as a restart would, and the chat goes on
 * on B.
 */
test("a chat open on web process B streams a turn web process A runs; A killed mid-turn, B ends the turn and the chat goes on", async ({ page }) => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  // A short lease: a dead web process's turn is ended within ~2 s.
  await using web = await WebProcesses.start({ databaseUrl: database.url, count: 2, env: { ...FAKE_LLM, MODEX_LEASE_MS: "1500" } });
  const [a, b] = await web.ready();
  const { sessionId } = await a.json<{ sessionId: string }>("/api/chat", { method: "POST", body: JSON.stringify({ title: "two processes" }) });
  await openChat(page, b, sessionId);

  // A message sent to A: its answer appears on B's page.
  await a.json(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "hello there" }) });
  const turns = page.getByTestId("chat-turn");
  await expect(turns.first()).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turns.first().getByTestId("chat-answer")).toHaveText("You said: hello there. Modex is listening.");

  // A long answer A streams: B's page shows it word by word, while it runs.
  await a.json(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "slow story please" }) });
  await expect(turns.nth(1).getByTestId("chat-answer")).toContainText("word3", { timeout: 20_000 });
  await expect(turns.nth(1)).toHaveAttribute("data-state", "running");

  // A dies: B ends its turn as a restart does, keeping what streamed.
  await a.killHard();
  await expect(turns.nth(1)).toHaveAttribute("data-state", "failed", { timeout: 20_000 });
  await expect(turns.nth(1).getByTestId("chat-note")).toContainText("the server stopped while this turn ran");
  await expect(turns.nth(1).getByTestId("chat-answer")).toContainText("word3");
  await page.screenshot({ path: "e2e/screenshots/cluster-chat.png" });

  // The chat takes messages again, on B.
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("still here");
  await box.press("Enter");
  await expect(turns.nth(2)).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turns.nth(2).getByTestId("chat-answer")).toContainText("You said: still here.");
});

/**
 * A message queued on web process A behind the turn A streams is stored before A answers 202: when A is
 * killed (kill -9), B ends A's turn and answers the queued message, once.
 */
test("a message queued on web process A behind its streaming turn is answered by B after A is killed", async () => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  await using web = await WebProcesses.start({ databaseUrl: database.url, count: 2, env: { ...FAKE_LLM, MODEX_LEASE_MS: "1500" } });
  const [a, b] = await web.ready();
  const { sessionId } = await a.json<{ sessionId: string }>("/api/chat", { method: "POST", body: "{}" });
  const started = await a.json<{ handled: string; turnId: string }>(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "slow story please" }) });
  expect(started.handled).toBe("started");
  const events = async () => (await b.json<{ events: Record<string, unknown>[] }>(`/api/chat/${sessionId}/events`)).events;
  await expect.poll(async () => (await events()).some((e) => e.type === "text_delta"), { timeout: 20_000 }).toBe(true);
  const queued = await a.json<{ handled: string }>(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "are you there?" }) });
  expect(queued.handled).toBe("queued");

  await a.killHard();
  await expect.poll(async () => (await events()).filter((e) => e.type === "turn_completed").length, { timeout: 30_000 }).toBe(1);
  const after = await events();
  expect(after.find((e) => e.type === "turn_failed")).toMatchObject({ turnId: started.turnId, message: expect.stringContaining("the server stopped") });
  expect(after.filter((e) => e.type === "queued_started").map((e) => e.text)).toEqual(["are you there?"]);
  expect(after.find((e) => e.type === "turn_completed")).toMatchObject({ stopReason: "completed", content: expect.stringContaining("You said: are you there?") });
  expect(await b.json(`/api/chat/${sessionId}`)).toMatchObject({ running: false, turns: 2, title: "slow story please" });
});

/**
 * Stop on a chat page of web process B ends the turn web process A runs (relayed to A, which stops it as
 * its own Stop would); then A, stopped with SIGTERM mid-turn, ends its turn at once, as a restart does,
 * although its lease (a minute) is far from expired.
 */
test("Stop pressed on web process B's chat page stops the turn A runs; A stopped with SIGTERM ends its turn at once", async ({ page }) => {
  test.setTimeout(180_000);
  await using database = await PgTestDatabase.create();
  // A long lease: only A's own shutdown can end its turn within seconds.
  await using web = await WebProcesses.start({ databaseUrl: database.url, count: 2, env: { ...FAKE_LLM, MODEX_LEASE_MS: "60000" } });
  const [a, b] = await web.ready();
  const { sessionId } = await a.json<{ sessionId: string }>("/api/chat", { method: "POST", body: JSON.stringify({ title: "stop from B" }) });
  await openChat(page, b, sessionId);

  await a.json(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "slow story please" }) });
  const turns = page.getByTestId("chat-turn");
  await expect(turns.first().getByTestId("chat-answer")).toContainText("word3", { timeout: 20_000 });
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await expect(turns.first()).toHaveAttribute("data-state", "stopped", { timeout: 10_000 });
  await expect(turns.first().getByTestId("chat-note")).toHaveText("Stopped.");
  await expect(turns.first().getByTestId("chat-answer")).toContainText("word3");
  await page.screenshot({ path: "e2e/screenshots/cluster-chat-stop.png" });
  // A stopped it, as its own Stop would: the turn ended cancelled, in A's store of events too.
  const events = await a.json<{ events: { type: string; stopReason?: string }[] }>(`/api/chat/${sessionId}/events`);
  expect(events.events.filter((e) => e.type === "turn_completed").map((e) => e.stopReason)).toEqual(["cancelled"]);

  // Another long turn on A; A gets SIGTERM: B's page shows the turn ended by the restart, within seconds.
  await a.json(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "slow story again" }) });
  await expect(turns.nth(1).getByTestId("chat-answer")).toContainText("word3", { timeout: 20_000 });
  const stopping = Date.now();
  await a.stop();
  await expect(turns.nth(1)).toHaveAttribute("data-state", "failed", { timeout: 10_000 });
  expect(Date.now() - stopping).toBeLessThan(15_000);
  await expect(turns.nth(1).getByTestId("chat-note")).toContainText("the server stopped while this turn ran");
});
