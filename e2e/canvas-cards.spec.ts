import { type APIRequestContext, expect, type Locator, type Page, test } from "@playwright/test";
import { auth, saveSpec, signIn } from "./support/session";

// Node cards on the canvas (components/canvas/node-card.ts): sized from their content, so a long name
// and a run's state are shown whole, in the spec preview and on an instance, and the layout places the
// cards as drawn.
test.describe.configure({ timeout: 180_000 });

const LONG = "summarize_each_customer_support_ticket_with_citations";
const CAMEL = "ProcessIncomingCustomerSupportTicketsQuickly";
const ASK = "ask_the_reviewer_for_final_sign_off";

async function start(request: APIRequestContext, spec: string, input: unknown): Promise<string> {
  const res = await request.post("/api/graphs/instances", { headers: auth(), data: { spec, input } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { instanceId: string }).instanceId;
}

/**
 * Every card's text within its card: each name line, the node type and the state line no wider than
 * its box (scrollWidth ≤ clientWidth: a cut or ellipsised text is wider), and the card's content no
 * taller than the card the layout placed.
 */
async function clipped(canvas: Locator): Promise<string[]> {
  return canvas.locator('[data-testid="canvas-node"]').evaluateAll((cards) =>
    cards.flatMap((card) => {
      const id = card.getAttribute("data-node");
      const bad: string[] = [];
      if (card.scrollHeight > card.clientHeight + 1) bad.push(`${id}: content ${card.scrollHeight}px tall in a ${card.clientHeight}px card`);
      for (const el of card.querySelectorAll<HTMLElement>('[data-testid="node-name"] > span, span.font-mono, [data-testid="node-state"]')) {
        if (el.scrollWidth > el.clientWidth) bad.push(`${id}: "${el.textContent}" is ${el.scrollWidth}px in ${el.clientWidth}px`);
      }
      return bad;
    }),
  );
}

async function shoot(page: Page, name: string) {
  await page.waitForTimeout(300); // the canvas fits itself in the next frame
  await page.screenshot({ path: `e2e/screenshots/${name}.png` });
}

test("a long node name wraps within its card and a waiting node says so whole, in the preview and on the instance", async ({ page }) => {
  const spec = `e2e-cards-${Date.now().toString(36)}`;
  await saveSpec(
    page.request,
    [
      `name: ${spec}`,
      "nodes:",
      `  - name: ${LONG}`,
      "    node_type: function",
      "    config: { op: identity }",
      `  - name: ${CAMEL}`,
      "    node_type: function",
      "    config: { op: identity }",
      `  - name: ${ASK}`,
      "    node_type: human_input",
      '    config: { prompt: "Sign off?" }',
      "edges:",
      `  - { from: __start__, to: ${LONG} }`,
      `  - { from: ${LONG}, to: ${CAMEL} }`,
      `  - { from: ${CAMEL}, to: ${ASK} }`,
      `  - { from: ${ASK}, to: __end__ }`,
    ].join("\n"),
  );
  await signIn(page);

  await page.goto(`/graphs/${spec}`);
  const preview = page.getByTestId("spec-preview");
  await expect(preview).toHaveAttribute("data-layout", "final", { timeout: 30_000 });
  const longCard = preview.locator(`[data-testid="canvas-node"][data-node="${LONG}"]`);
  // Wrapped after its underscores, whole: the lines read the name.
  const lines = await longCard.locator('[data-testid="node-name"] > span').allTextContents();
  expect(lines.length).toBeGreaterThan(1);
  expect(lines.join("")).toBe(LONG);
  expect(await clipped(preview)).toEqual([]);
  await shoot(page, "canvas-cards-preview");

  const id = await start(page.request, spec, "ticket");
  await page.goto(`/instances/${id}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "paused", { timeout: 60_000 });
  const canvas = page.getByTestId("instance-canvas");
  const asker = canvas.locator(`[data-testid="canvas-node"][data-node="${ASK}"]`);
  await expect(asker).toHaveAttribute("data-state", "waiting");
  await expect(asker.getByTestId("node-state")).toHaveText("waiting for input");
  await expect(canvas.locator(`[data-testid="canvas-node"][data-node="${LONG}"]`).getByTestId("node-state")).toHaveText("completed");
  expect(await clipped(canvas)).toEqual([]);
  // The layout used the cards' real sizes: no two cards overlap.
  const boxes = await canvas.locator('[data-testid="canvas-node"]').evaluateAll((cards) => cards.map((c) => c.getBoundingClientRect().toJSON() as DOMRect));
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) expect(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top).toBe(true);
  }
  await shoot(page, "canvas-cards-instance");
});

test("an agent node waiting for approval, and the seeded examples' instances: every card's name and state whole", async ({ page }) => {
  await signIn(page);
  const approval = await start(page.request, "release-notes", "- fixed the login bug\n- faster search");
  await page.goto(`/instances/${approval}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "paused", { timeout: 60_000 });
  const canvas = page.getByTestId("instance-canvas");
  const publisher = canvas.locator('[data-testid="canvas-node"][data-node="publisher"]');
  await expect(publisher).toHaveAttribute("data-state", "approval");
  await expect(publisher.getByTestId("node-state")).toHaveText("waiting for approval");
  await expect(page.getByTestId("instance-view").getByTestId("status-badge").first()).toHaveText("waiting for approval");
  expect(await clipped(canvas)).toEqual([]);
  await shoot(page, "canvas-cards-approval");

  for (const [spec, input] of [
    ["map-reduce", ["a", "b", "c"]],
    ["counter-loop", null],
    ["subgraph", "hello"],
    ["review-cycle", "Write add(a, b)."],
  ] as const) {
    const id = await start(page.request, spec, input);
    await page.goto(`/instances/${id}`);
    await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", /completed|paused|failed/, { timeout: 60_000 });
    await expect(canvas.locator('[data-testid="canvas-node"]').first()).toBeVisible();
    expect(await clipped(canvas), spec).toEqual([]);
    await shoot(page, `canvas-cards-${spec}`);
  }
});
