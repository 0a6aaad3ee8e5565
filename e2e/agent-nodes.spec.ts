import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { ModexServer, removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";
import { auth, signIn } from "./support/session";

// Agents as graph nodes in the production server, over the stand-in model (e2e/support/fake-llm-server.mjs,
// which speaks the demo model's tool protocol over the OpenAI streaming protocol).
test.describe.configure({ timeout: 180_000 });

const node = (page: Page, name: string) => page.locator(`[data-testid="canvas-node"][data-node="${name}"]`);

/**
 * Clicks a node of a live run until its detail opens: the canvas follows the running node by panning
 * (300 ms), and a click that lands while it pans can miss the node.
 */
async function openNode(page: Page, name: string) {
  const detail = page.getByRole("region", { name: `Node ${name}` });
  await expect(async () => {
    await node(page, name).click();
    await expect(detail).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
}

async function start(request: APIRequestContext, spec: string, input: string): Promise<string> {
  const res = await request.post("/api/graphs/instances", { headers: auth(), data: { spec, input } });
  expect(res.status()).toBe(201);
  return (await res.json()).instanceId as string;
}

test("review-cycle: each agent node's turns in the sidebar (tool calls, results, attempt, tokens), one transcript per invocation, and the Knowledge tab", async ({ page }) => {
  await signIn(page);
  const id = await start(page.request, "review-cycle", "Write add(a, b).");
  await page.goto(`/instances/${id}`);
  const view = page.getByTestId("instance-view");
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await node(page, "coder").click();
  const turns = page.getByTestId("agent-turn");
  await expect(turns).toBeVisible();
  // Two invocations of the coder (the reviewer sent the first draft back), each its own transcript.
  await expect(turns.getByTestId("agent-invocation")).toHaveCount(2);
  const second = turns.getByTestId("agent-invocation").nth(1);
  await expect(second.getByTestId("agent-progress")).toContainText(/attempt 1 · iteration \d+ · tokens \d+ in \/ \d+ out/);
  await expect(second.getByTestId("agent-tool-call").filter({ hasText: "deliver" })).toContainText('"target": "reviewer"');
  await expect(second.getByTestId("agent-tool-result").filter({ hasText: "knowledge_base" }).first()).toBeVisible();
  await expect(second.getByTestId("agent-turn-ended")).toContainText("completed");
  // The event log keeps them: the timeline lists agent events too.
  const events = await (await page.request.get(`/api/graphs/instances/${id}/events?limit=10000`, { headers: auth() })).json();
  const kinds = new Set((events.events ?? events).filter((e: { event: { type: string } }) => e.event.type === "node_activity").map((e: { event: { activity: { kind: string } } }) => e.event.activity.kind));
  expect([...kinds].sort()).toEqual(["message", "tool_call", "tool_result", "turn_ended", "turn_started", "usage"]);
  await page.screenshot({ path: "e2e/screenshots/agent-turns.png" });

  // The Knowledge tab: the five files, the changelog with each write's diff.
  await page.getByTestId("agent-panels").getByRole("tab", { name: "Knowledge" }).click();
  const kb = page.getByTestId("knowledge-tab");
  for (const f of ["findings", "decisions", "open questions", "context", "changelog"]) await expect(kb.getByRole("tab", { name: new RegExp(`^${f}`) })).toBeVisible();
  await kb.getByRole("tab", { name: /^changelog/ }).click();
  await expect(kb.getByTestId("knowledge-changelog")).toContainText("coder");
  await expect(kb.getByTestId("knowledge-changelog")).toContainText("@@");
  await page.screenshot({ path: "e2e/screenshots/agent-knowledge.png" });
});

test("an agent node asks approval: the instance waits with an approval card; Approve runs the tool and the run completes", async ({ page }) => {
  await signIn(page);
  const id = await start(page.request, "release-notes", "- fixed the login bug\n- faster search");
  await page.goto(`/instances/${id}`);
  const view = page.getByTestId("instance-view");
  await expect(view).toHaveAttribute("data-status", "paused", { timeout: 60_000 });
  const card = page.getByTestId("agent-approval-card");
  await expect(card).toHaveAttribute("data-state", "waiting");
  await expect(card).toContainText("publisher");
  await expect(card.getByTestId("approval-tool")).toHaveText("deliver");
  // One argument a line, a string as written: the content's line breaks are line breaks, not `\n`.
  await expect(card.locator('[data-testid="approval-arg"][data-arg="target"] dd')).toHaveText("__end__");
  const content = card.locator('[data-testid="approval-arg"][data-arg="content"] dd');
  await expect(content).toContainText("from drafter");
  await expect(content).not.toContainText("\\n");
  expect((await content.boundingBox())!.height).toBeGreaterThan(30);
  await expect(card.getByTestId("approval-reasoning")).toContainText("Handing my result on");
  await expect(node(page, "publisher")).toHaveAttribute("data-state", "approval");
  // Resume is not the way on (the server refuses it): the card is.
  await expect(page.getByRole("button", { name: "Resume", exact: true })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Resume", exact: true })).toHaveAttribute("title", /approve or deny/);
  await page.screenshot({ path: "e2e/screenshots/agent-approval.png" });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(card).toHaveAttribute("data-state", "decided");
  await expect(card.getByTestId("approval-decided")).toContainText("You approved deliver of publisher");
  const detail = await (await page.request.get(`/api/graphs/instances/${id}`, { headers: auth() })).json();
  expect(detail.summary.result.map((p: { content: string }) => p.content).join("\n")).toContain("(Written by the offline demo model.)");
});

test("Deny tells the agent why over REST; its revision asks again; modexctl-style approve finishes it", async ({ request }) => {
  const id = await start(request, "release-notes", "- a change");
  const waiting = async () => {
    await expect.poll(async () => (await (await request.get(`/api/graphs/instances/${id}`, { headers: auth() })).json()).waitingFor?.kind ?? null, { timeout: 60_000 }).toBe("agent_approval");
    return (await (await request.get(`/api/graphs/instances/${id}`, { headers: auth() })).json()).waitingFor;
  };
  const first = await waiting();
  // A decision on an approval that is not the waiting one is refused.
  expect((await request.post(`/api/graphs/instances/${id}/approve`, { headers: auth(), data: { transactionId: "nope" } })).status()).toBe(409);
  // With an Idempotency-Key, a repeated deny (a retry after a lost answer) answers the first one's answer
  // and decides nothing twice; the same key with another reason is 422.
  const keyed = { headers: { ...auth(), "idempotency-key": `deny-${id}` }, data: { reason: "name the change" } };
  const denied = await request.post(`/api/graphs/instances/${id}/deny`, keyed);
  expect(denied.status()).toBe(200);
  const deniedBody = await denied.json();
  expect(deniedBody.command).toBe("DENY");
  const repeated = await request.post(`/api/graphs/instances/${id}/deny`, keyed);
  expect(repeated.status()).toBe(200);
  expect(repeated.headers()["idempotent-replayed"]).toBe("true");
  expect(await repeated.json()).toEqual(deniedBody);
  expect((await request.post(`/api/graphs/instances/${id}/deny`, { ...keyed, data: { reason: "another" } })).status()).toBe(422);
  const second = await waiting();
  expect(second.transactionId).not.toBe(first.transactionId);
  expect(second.args).toContain("Revised after a denial: name the change");
  // Answering an agent approval as human input is refused (409), approve is the way.
  expect((await request.post(`/api/graphs/instances/${id}/answer`, { headers: auth(), data: { value: "yes" } })).status()).toBe(409);
  expect((await request.post(`/api/graphs/instances/${id}/approve`, { headers: auth() })).status()).toBe(200);
  await expect.poll(async () => (await (await request.get(`/api/graphs/instances/${id}`, { headers: auth() })).json()).summary.status, { timeout: 60_000 }).toBe("completed");
});

test("the waiting approval survives a restart of the server (kill -9): the approval card is there again, Approve completes the run", { tag: "@own-server" }, async ({ browser }) => {
  const dataDir = tempDir("modex-approval-restart-");
  const env = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo" };
  let server = await (await ModexServer.start({ dataDir, env })).ready();
  try {
    const created = await server.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "release-notes", input: "- survives restarts" }) });
    const id = created.instanceId;
    await expect.poll(async () => (await server.json<{ waitingFor?: { kind?: string } }>(`/api/graphs/instances/${id}`)).waitingFor?.kind ?? null, { timeout: 60_000 }).toBe("agent_approval");
    await server.killHard();
    server = await (await ModexServer.start({ dataDir, env, port: server.port })).ready();
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    expect((await page.request.post("/api/auth/login", { data: { token: SERVER_TOKEN } })).ok()).toBe(true);
    await page.goto(`/instances/${id}`);
    const card = page.getByTestId("agent-approval-card");
    await expect(card).toHaveAttribute("data-state", "waiting", { timeout: 30_000 });
    await expect(card.getByTestId("approval-tool")).toHaveText("deliver");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
    await context.close();
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});

test("Pause cancels a streaming agent turn (what streamed is kept); Resume re-runs it with its memory to completion", async ({ page }) => {
  await signIn(page);
  const id = await start(page.request, "review-cycle", "slow: write add(a, b)");
  // Opened mid-call, the node shows everything its model call has streamed so far, not only what follows.
  await expect.poll(async () => {
    const log = await (await page.request.get(`/api/graphs/instances/${id}/events?limit=1000`, { headers: auth() })).json();
    return (log.events ?? log).some((e: { event: { type: string; activity?: { kind: string } } }) => e.event.activity?.kind === "turn_started");
  }, { timeout: 30_000 }).toBe(true);
  await page.waitForTimeout(3_000);
  await page.goto(`/instances/${id}`);
  await openNode(page, "coder");
  const streaming = page.getByTestId("agent-streaming");
  await expect(streaming).toContainText("Thinking about step 3", { timeout: 30_000 });
  expect(await streaming.textContent()).toMatch(/^Thinking about step 1 of the change\. Thinking about step 2/);
  await page.screenshot({ path: "e2e/screenshots/agent-live-turn.png" });
  const view = page.getByTestId("instance-view");
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(view).toHaveAttribute("data-status", "paused", { timeout: 5_000 });
  await expect(node(page, "coder")).toHaveAttribute("data-state", "cancelled");
  // What streamed before the pause is in the transcript, and far from all of it streamed.
  const kept = page.getByTestId("agent-turn").getByTestId("agent-message").first();
  await expect(kept).toContainText("Thinking about step 3");
  expect(await kept.textContent()).not.toContain("step 300 of the change");
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(page.getByTestId("agent-turn").getByTestId("agent-turn-ended").first()).toContainText("cancelled");
});
