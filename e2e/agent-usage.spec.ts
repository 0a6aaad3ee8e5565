import { expect, test } from "@playwright/test";
import { auth, signIn } from "./support/session";

// The server runs with e2e/support/model-prices.yml (MODEX_MODEL_PRICES): fake-echo at 2.5 / 10 USD per 1M tokens.
test.describe.configure({ timeout: 180_000 });

test("an agent node's token usage and cost in its node detail (node, run), each turn linking to its trace waterfall", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const res = await page.request.post("/api/graphs/instances", { headers: auth(), data: { spec: "review-cycle", input: "Write add(a, b)." } });
  expect(res.status()).toBe(201);
  const { instanceId } = (await res.json()) as { instanceId: string };
  await page.goto(`/instances/${instanceId}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 60_000 });

  // Over REST: the same totals.
  const usage = await (await page.request.get(`/api/graphs/instances/${instanceId}/usage`, { headers: auth() })).json();
  expect(usage).toMatchObject({ instanceId, currency: "USD", unpriced: [] });
  const coder = usage.nodes.find((n: { node: string }) => n.node === "coder");
  expect(coder.calls).toBeGreaterThan(0);
  expect(coder.turns).toHaveLength(2);
  expect(usage.inputTokens).toBeGreaterThan(coder.inputTokens);

  // The instance summary says what the whole run used.
  await expect(page.getByTestId("instance-usage")).toContainText(`${(usage.inputTokens + usage.outputTokens).toLocaleString("en")} tokens · ${usage.calls} calls`);
  await expect(page.getByTestId("instance-usage")).toContainText(/\d\.\d+ USD/);

  await page.locator('[data-testid="canvas-node"][data-node="coder"]').click();
  const panel = page.getByTestId("node-detail").getByTestId("agent-usage");
  await expect(panel.getByTestId("agent-usage-node")).toContainText(`${(coder.inputTokens + coder.outputTokens).toLocaleString("en")} tokens (${coder.inputTokens.toLocaleString("en")} in · ${coder.outputTokens.toLocaleString("en")} out)`);
  await expect(panel.getByTestId("agent-usage-node")).toContainText(/\d\.\d+ USD/);
  await expect(panel).toContainText("model fake-echo");
  await expect(panel.getByTestId("agent-usage-instance")).toContainText(`${(usage.inputTokens + usage.outputTokens).toLocaleString("en")} tokens`);
  await expect(panel.getByTestId("agent-usage-turn")).toHaveCount(2);
  await expect(panel.getByTestId("agent-usage-turn").first()).toContainText("completed");
  // The node detail sits below the agent's turns in the sidebar: scrolled to, as a user would.
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/screenshots/agent-usage.png" });

  await panel.getByTestId("agent-trace-link").first().click();
  await expect(page).toHaveURL(/\/traces\?instance=\d+&node=coder&turn=[\w-]+$/);
  const spans = page.getByTestId("trace-span");
  await expect(spans.first()).toHaveAttribute("data-kind", "agent", { timeout: 20_000 });
  await expect(spans.first()).toContainText("invoke_agent coder");
  await expect(page.locator('[data-testid="trace-span"][data-kind="model"]').first()).toBeVisible();
  await expect(page.locator('[data-testid="trace-span"][data-kind="tool"]').first()).toBeVisible();
  await expect(page.getByTestId("trace-summary")).toContainText(/tokens · \d\.\d+ USD/);
  await page.screenshot({ path: "e2e/screenshots/agent-trace.png" });
  await page.getByTestId("trace-back").click();
  await expect(page).toHaveURL(new RegExp(`/instances/${instanceId}$`));
  expect(pageErrors).toEqual([]);
});
