import { expect, test } from "@playwright/test";
import { isSummaryRequest, requestsOf } from "./support/model-requests";
import { auth, signIn } from "./support/session";

// Memory cleanup inside a graph run: an agent node whose `memory:` budget its turn outgrows gets older
// steps summarized, as a chat does (e2e/chat-memory.spec.ts). The stand-in model is the demo policy.
test.describe.configure({ timeout: 120_000 });

test("an agent node over its memory budget: its older steps are summarized for the model, its turn shows it, its trace has the cleanup", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const tag = `yak${Date.now().toString(36)}`;
  const node = `reader_${tag}`;
  const filler = "release note line for the summary. ".repeat(450);
  // One agent node with a small budget that its long input alone breaks: its second model call summarizes
  // the input (the first has nothing before its last message to summarize); the rest of the turn fits.
  const spec = [
    `name: e2e-node-memory-${tag}`,
    `version: "1"`,
    `description: One agent node with a tiny context budget.`,
    `nodes:`,
    `  - name: ${node}`,
    `    node_type: agent`,
    `    config:`,
    `      instructions: Read the notes, record a finding, then hand the answer on.`,
    `      memory: { max_context_tokens: 3000 }`,
    `edges:`,
    `  - { from: __start__, to: ${node} }`,
    `  - { from: ${node}, to: __end__ }`,
    ``,
  ].join("\n");
  const saved = await page.request.post("/api/graphs/specs", { headers: { ...auth(), "content-type": "application/yaml" }, data: spec });
  expect(saved.status()).toBe(201);
  const started = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: `e2e-node-memory-${tag}`, input: `${tag}: ${filler} ${tag}` } });
  expect(started.status()).toBe(201);
  const { instanceId } = (await started.json()) as { instanceId: string };

  await signIn(page);
  await page.goto(`/instances/${instanceId}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });

  // The model was asked for a summary of the node's older steps; the node's next request holds it, not its input.
  const sent = await requestsOf(page, tag);
  const first = sent.findIndex(isSummaryRequest);
  expect(first).toBeGreaterThanOrEqual(0);
  const after = sent.slice(first + 1).find((r) => !isSummaryRequest(r))!;
  expect(after.messages.some((m) => (m.content ?? "").startsWith("<conversation-summary>"))).toBe(true);
  expect(after.messages.some((m) => m.role === "user" && (m.content ?? "").includes(`'__start__']\n${tag}`))).toBe(false);

  // The node's turn in the instance view shows where its context was summarized, with the summary.
  await page.locator(`[data-testid="canvas-node"][data-node="${node}"]`).click();
  const entry = page.getByTestId("agent-turn").getByTestId("agent-context-summarized").first();
  await expect(entry).toContainText(/context summarized: \d+ older messages?/);
  await entry.locator("summary").click();
  await expect(entry).toContainText("Summary of the earlier conversation");

  // The turn's trace has the memory cleanup span.
  await page.getByTestId("node-detail").getByTestId("agent-trace-link").first().click();
  const span = page.locator('[data-testid="trace-span"][data-kind="memory"]').first();
  await expect(span).toContainText("memory cleanup", { timeout: 15_000 });
  await expect(span.getByTestId("trace-memory-tokens")).toHaveText(/~[\d,]+ → ~[\d,]+ tokens/);
  expect(pageErrors).toEqual([]);
});
