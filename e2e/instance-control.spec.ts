import { expect, type Page, test } from "@playwright/test";
import { saveSpec, signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });

/** Opens the spec's editor page, runs it with `input` and waits for the instance view. */
async function runFromEditor(page: Page, name: string, nodeCount: number, input: string): Promise<void> {
  await page.goto(`/graphs/${name}`);
  await expect(page.getByTestId("spec-preview")).toHaveAttribute("data-node-count", String(nodeCount), { timeout: 60_000 });
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByLabel("Input").fill(input);
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page).toHaveURL(/\/instances\/[^/]+$/, { timeout: 30_000 });
}

test("deliver to a node of a finished run, re-invoke it, and switch between its versions", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const name = `e2e-versions-${Date.now().toString(36)}`;
  await saveSpec(
    page.request,
    `name: ${name}
nodes:
  - name: shout
    node_type: function
    config: { op: map, fn: upper }
edges:
  - { from: __start__, to: shout }
  - { from: shout, to: __end__ }
`,
  );
  await runFromEditor(page, name, 3, '"first"');
  const view = page.getByTestId("instance-view");
  const result = page.getByTestId("instance-result");
  await expect(view).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(result).toHaveText("FIRST");

  // Deliver to `shout` of the finished run: the content is picked up by a new run, version 2.
  await page.getByRole("button", { name: "Deliver…" }).click();
  const deliver = page.getByRole("dialog", { name: "Deliver to a node" });
  await deliver.getByLabel("Node").selectOption("shout");
  await deliver.getByLabel("Content").fill("delivered");
  await page.screenshot({ path: "e2e/screenshots/deliver-dialog.png" });
  await deliver.getByRole("button", { name: "Deliver" }).click();
  await expect(deliver).toBeHidden();
  await expect(result).toHaveText("DELIVERED", { timeout: 30_000 });
  await expect(page.getByLabel("Version")).toHaveValue("2");

  // Re-invoke with new input: version 3.
  await page.getByRole("button", { name: "Re-invoke…" }).click();
  const reinvoke = page.getByRole("dialog", { name: "Re-invoke as version 3" });
  await reinvoke.getByLabel("New input").fill('"third"');
  await page.screenshot({ path: "e2e/screenshots/reinvoke-dialog.png" });
  await reinvoke.getByRole("button", { name: "Run again" }).click();
  await expect(result).toHaveText("THIRD", { timeout: 30_000 });
  await expect(view).toHaveAttribute("data-status", "completed");
  const version = page.getByLabel("Version");
  await expect(version).toHaveValue("3");
  await expect(version.locator("option")).toHaveText(["v3 · completed", "v2 · completed", "v1 · completed"]);

  // Version 1 still shows its own input and result; the latest keeps its own label.
  await version.selectOption("1");
  await expect(result).toHaveText("FIRST");
  await expect(page.getByTestId("instance-summary")).toContainText("1 of 3");
  await expect(version.locator("option").first()).toHaveText("v3 · completed");
  await expect(page.locator('[data-testid="canvas-node"][data-node="shout"]')).toHaveAttribute("data-state", "completed");
  await page.screenshot({ path: "e2e/screenshots/instance-version-1.png" });
  await version.selectOption("3");
  await expect(result).toHaveText("THIRD");
  expect(pageErrors).toEqual([]);
});

test("stop a running instance: the node in flight finishes, nothing after it starts, and it cannot resume", async ({ page }) => {
  await signIn(page);
  const name = `e2e-stop-${Date.now().toString(36)}`;
  await saveSpec(
    page.request,
    `name: ${name}
nodes:
  - name: first
    node_type: delay
    config: { ms: 10000 }
  - name: second
    node_type: delay
    config: { ms: 2500 }
  - name: report
    node_type: function
    config: { op: template, template: "done: {{input}}" }
edges:
  - { from: __start__, to: first }
  - { from: first, to: second }
  - { from: second, to: report }
  - { from: report, to: __end__ }
`,
  );
  await runFromEditor(page, name, 5, '"x"');
  // \`first\` runs for 10 s: long enough that the click and its confirmation land while it runs, even on a loaded machine.
  const view = page.getByTestId("instance-view");
  await expect(page.locator('[data-testid="canvas-node"][data-node="first"]')).toHaveAttribute("data-state", "running", { timeout: 30_000 });
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  // Stop asks first (it cannot be undone).
  await page.getByRole("dialog", { name: "Stop this run?" }).getByRole("button", { name: "Stop the run" }).click();
  await expect(view).toHaveAttribute("data-status", "stopped", { timeout: 30_000 });
  await expect(page.locator('[data-testid="canvas-node"][data-node="first"]')).toHaveAttribute("data-state", "completed");
  await expect(page.locator('[data-testid="canvas-node"][data-node="second"]')).not.toHaveAttribute("data-state", /running|completed/);
  await expect(page.getByRole("button", { name: "Resume", exact: true })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Resume", exact: true })).toHaveAttribute("title", "A stopped run cannot resume");
  await expect(page.getByRole("button", { name: "Deliver…" })).toHaveAttribute("title", "A stopped run takes no deliveries");
  await page.screenshot({ path: "e2e/screenshots/instance-stopped.png" });
  // A reload shows the same: the status is the server's, not the page's.
  await page.reload();
  await expect(view).toHaveAttribute("data-status", "stopped", { timeout: 30_000 });
  await expect(page.locator('[data-testid="canvas-node"][data-node="report"]')).not.toHaveAttribute("data-state", "completed");
});
