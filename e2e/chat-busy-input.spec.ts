import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, request, test } from "@playwright/test";
import { accessToken, signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });

const TELLER = `name: teller
description: Tells stories, and drops one at once when you ask for another.
instructions: You tell stories.
tools: []
busy_input: INTERRUPT
`;

test("busy input per agent: an INTERRUPT agent's running turn is cut off by the next message, which runs at once; the composer can pick another mode for one message", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const saved = await page.request.put("/api/agents/teller", { headers: { authorization: `Bearer ${accessToken()}`, "content-type": "application/yaml" }, data: TELLER });
  expect(saved.ok()).toBe(true);

  await page.goto("/chat?agent=teller");
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("slow story please");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/chat\?session=\d+$/);
  const turns = page.getByTestId("chat-turn");
  await expect(turns.first().getByTestId("chat-answer")).toContainText("word3", { timeout: 20_000 });

  // The agent's mode, from its definition: the composer says a message now interrupts.
  const hint = page.getByTestId("chat-busy-hint");
  await expect(hint).toHaveAttribute("data-mode", "INTERRUPT");
  await expect(hint).toContainText("stops it (keeping what streamed)");
  await expect(page.getByTestId("chat-busy-mode")).toHaveValue("INTERRUPT");
  await box.fill("a short one");
  await expect(page.getByRole("button", { name: "Interrupt" })).toBeEnabled();
  await box.press("Enter");
  await expect(turns.first()).toHaveAttribute("data-state", "stopped", { timeout: 10_000 });
  await expect(turns.first().getByTestId("chat-note")).toHaveText("Interrupted by your next message (what streamed is kept).");
  await expect(turns.first().getByTestId("chat-answer")).toContainText("word3");
  // Its model call was cut off before it reported tokens: the footer shows an estimate, labelled, not "0 tokens".
  await expect(turns.first().getByTestId("chat-usage")).toHaveText(/^~[\d,]+ tokens \(estimated: ~[\d,]+ in · ~[\d,]+ out\)$/);
  await expect(turns.nth(1)).toHaveAttribute("data-state", "completed", { timeout: 20_000 });
  await expect(turns.nth(1).getByTestId("chat-answer")).toContainText("You said: a short one");
  // Priced from the server's model price table (e2e/support/model-prices.yml): 10 in, 5 out on fake-echo.
  await expect(turns.nth(1).getByTestId("chat-cost")).toHaveText("0.000075 USD");
  await page.screenshot({ path: "e2e/screenshots/chat-interrupted.png" });

  // One message queued instead, though the agent interrupts: the select beside the hint.
  await box.fill("slow again");
  await box.press("Enter");
  await expect(turns.nth(2).getByTestId("chat-answer")).toContainText("word3", { timeout: 20_000 });
  await page.getByTestId("chat-busy-mode").selectOption("QUEUE");
  await expect(hint).toHaveAttribute("data-mode", "QUEUE");
  await box.fill("after that");
  await expect(page.getByRole("button", { name: "Queue" })).toBeEnabled();
  await page.screenshot({ path: "e2e/screenshots/chat-busy-override.png" });
  await box.press("Enter");
  await expect(turns.nth(2).getByTestId("chat-notice")).toHaveText("Queued, runs when this turn ends: after that");
  await expect(turns.nth(2)).toHaveAttribute("data-state", "running");
  // The pick was for that message only: the agent's mode is back.
  await expect(page.getByTestId("chat-busy-mode")).toHaveValue("INTERRUPT");
  await box.fill("/stop");
  await box.press("Enter");
  await expect(turns.nth(2)).toHaveAttribute("data-state", "stopped", { timeout: 20_000 });
  await expect(turns.nth(3).getByTestId("chat-answer")).toContainText("You said: after that", { timeout: 20_000 });
  expect(pageErrors).toEqual([]);
});

test("modexctl chat send --busy interrupt: one message interrupts a QUEUE agent's running turn (same service path)", async ({ baseURL }) => {
  const auth = { authorization: `Bearer ${accessToken()}` };
  const api = await request.newContext({ baseURL, extraHTTPHeaders: auth });
  const started = await (await api.post("/api/chat", { data: {} })).json();
  const sessionId = started.sessionId as string;
  expect((await api.post(`/api/chat/${sessionId}/messages`, { data: { message: "slow story please" } })).status()).toBe(202);
  await expect.poll(async () => (await (await api.get(`/api/chat/${sessionId}/events`)).json()).events.filter((e: { type: string }) => e.type === "text_delta").length, { timeout: 20_000 }).toBeGreaterThan(3);

  const env = { ...process.env, MODEX_URL: baseURL!, MODEX_DATA_DIR: process.env.MODEX_E2E_DATA_DIR, MODEX_TOKEN: "" };
  const cli = path.resolve(import.meta.dirname, "../bin/modexctl.mjs");
  const { stdout } = await promisify(execFile)(process.execPath, [cli, "chat", "send", sessionId, "--busy", "interrupt", "--json", "quick", "one"], { env, timeout: 60_000 });
  const out = JSON.parse(stdout) as { accepted: { handled: string; mode: string }; events: { type: string; stopReason?: string; content?: string }[] };
  expect(out.accepted).toMatchObject({ handled: "interrupted", mode: "INTERRUPT" });
  const { events } = (await (await api.get(`/api/chat/${sessionId}/events`)).json()) as { events: { type: string; stopReason?: string; content?: string }[] };
  const ends = events.filter((e) => e.type === "turn_completed");
  expect(ends.map((e) => e.stopReason)).toEqual(["interrupted", "completed"]);
  expect(ends[1].content).toContain("You said: quick one");
  await api.dispose();
});
