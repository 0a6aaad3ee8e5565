import { expect, test } from "@playwright/test";
import { signIn } from "./support/session";
import { create } from "./support/runs";

/**
 * The frictions the 2026-12-03 daily user's pass left (docs/ui-audit-2026-12-03.md, Session 23): a
 * finished agent run's way to its trace, Pause and Resume on an example, and who answered in words.
 */
test.describe.configure({ timeout: 120_000 });

test("an agent run's page: Trace → on the approval card and for each turn opens that turn's trace; the card says You approved", async ({ page, context }) => {
  await signIn(page);
  const id = await create(page.request, "release-notes", "- fixed the login bug\n- faster search");
  await page.goto(`/instances/${id}`);
  const view = page.getByTestId("instance-view");
  const card = page.getByTestId("agent-approval-card");
  await expect(card).toHaveAttribute("data-state", "waiting", { timeout: 60_000 });
  // While it waits: the turn that asked, so far.
  const waitingTurn = await card.getByTestId("turn-trace-link").getAttribute("data-turn");
  await expect(card.getByTestId("turn-trace-link")).toHaveAttribute("data-node", "publisher");
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(card).toHaveAttribute("data-state", "decided");
  // This tab approved: the card says so in the second person.
  await expect(card.getByTestId("approval-decided")).toContainText("You approved deliver of publisher");

  // No node selected: every agent turn of the run, each with its trace.
  const turns = page.getByTestId("run-turn");
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(0)).toContainText("drafter · turn 1");
  await expect(turns.nth(1)).toContainText("publisher · turn 1");
  await expect(turns.getByTestId("turn-trace-link")).toHaveCount(2);
  await expect(turns.nth(1).getByTestId("turn-trace-link")).toHaveAttribute("data-turn", waitingTurn!);
  await page.screenshot({ path: "e2e/screenshots/daily-user-trace-links.png" });

  // The decided card's link: the same turn (resumed after the approval, it keeps its id).
  const link = card.getByTestId("turn-trace-link");
  await expect(link).toHaveText("Trace →");
  await expect(link).toHaveAttribute("data-turn", waitingTurn!);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/traces\\?instance=${id}&node=publisher&turn=${waitingTurn}$`));
  const spans = page.getByTestId("trace-span");
  await expect(spans.first()).toContainText("invoke_agent publisher", { timeout: 20_000 });
  // Where the turn picked up after the decision: an instant span under the root, after the approval's.
  const resumed = page.locator("[data-testid=trace-span][data-kind=resume]");
  await expect(resumed).toHaveCount(1);
  await expect(resumed).toContainText(/^resumed after the approval decision, in step \d+/);
  await expect(resumed).toContainText("0 ms");
  await resumed.getByRole("button").click();
  await expect(resumed).toContainText("modex.resumed.fromapproval");
  await page.screenshot({ path: "e2e/screenshots/trace-resumed-after-approval.png" });
  if (process.env.MODEX_E2E_SCREENSHOTS) {
    for (const colorScheme of ["light", "dark"] as const) {
      for (const [width, height] of [[1024, 768], [1440, 900]] as const) {
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize({ width, height });
        await page.screenshot({ path: `${process.env.MODEX_E2E_SCREENSHOTS}/trace-resumed-${width}-${colorScheme}.png` });
      }
    }
  }
  await page.goBack();

  // A selected agent node: its invocations link their turn too.
  await page.locator('[data-testid="canvas-node"][data-node="drafter"]').click();
  const invocation = page.getByTestId("agent-turn").getByTestId("agent-invocation").first();
  const drafterTurn = await invocation.getByTestId("turn-trace-link").getAttribute("data-turn");
  await expect(turns).toHaveCount(0);
  await invocation.getByTestId("turn-trace-link").click();
  await expect(page).toHaveURL(new RegExp(`/traces\\?instance=${id}&node=drafter&turn=${drafterTurn}$`));
  await expect(spans.first()).toContainText("invoke_agent drafter", { timeout: 20_000 });

  // Another tab of the same login: the server recorded this sign-in session, so it says "You" as well.
  const other = await context.newPage();
  await other.goto(`/instances/${id}`);
  await expect(other.getByTestId("approval-decided")).toContainText("You approved deliver of publisher", { timeout: 30_000 });
  await other.close();
});

test("paced-pipeline with {\"pace_seconds\": 5}: slow enough to Pause from the web app, then Resume to the end", async ({ page }) => {
  await signIn(page);
  await page.goto("/graphs/paced-pipeline");
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByLabel("Input").fill('{"pace_seconds": 5}');
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page).toHaveURL(/\/instances\/[^/]+$/, { timeout: 30_000 });
  const view = page.getByTestId("instance-view");
  const pause = page.getByRole("button", { name: "Pause", exact: true });
  // Two delays of 5 s: the page is up and Pause is there while the first one waits.
  await expect(view).toHaveAttribute("data-status", "running", { timeout: 30_000 });
  await expect(pause).toBeEnabled({ timeout: 10_000 });
  await pause.click();
  // A pause drains: the delay running finishes, nothing after it starts.
  await expect(view).toHaveAttribute("data-status", "paused", { timeout: 15_000 });
  await expect(page.locator('[data-testid="canvas-node"][data-node="publish"]')).not.toHaveAttribute("data-state", "completed");
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  // Resumed, it runs on to the end (at most one more delay).
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("instance-result")).toContainText("published ITEM");
});

test("the default paced-pipeline still runs in a blink (its delays' own 20 ms)", async ({ page }) => {
  const id = await create(page.request, "paced-pipeline", "42");
  await signIn(page);
  await page.goto(`/instances/${id}`);
  await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed", { timeout: 10_000 });
  await expect(page.getByTestId("instance-result")).toContainText("published ITEM 42");
});
