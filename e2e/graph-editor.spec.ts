import { expect, test } from "@playwright/test";
import { editorMarkers, editorText, placeCursor, signIn, typeLinesAfter } from "./support/session";

test.describe.configure({ timeout: 120_000 });

test("type a spec in Monaco, watch the preview follow, keep it while the YAML is invalid, save and compare versions", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const name = `e2e-editor-${Date.now().toString(36)}`;

  await page.goto("/graphs");
  await page.getByRole("button", { name: "New graph" }).click();
  await page.getByLabel("Name").fill(name);
  await page.getByText("Pipeline", { exact: true }).click();
  await page.screenshot({ path: "e2e/screenshots/new-graph-dialog.png" });
  await page.getByRole("button", { name: "Open in editor" }).click();

  const preview = page.getByTestId("spec-preview");
  // The template: greet, shout, report between START and END.
  await expect(preview).toHaveAttribute("data-node-count", "5", { timeout: 60_000 });
  await expect(preview).toHaveAttribute("data-edge-count", "4");
  await expect(page.locator(".monaco-editor")).toBeVisible();
  expect(await editorText(page)).toContain(`name: ${name}`);

  // Type a fourth node and reroute report through it.
  const lastEdge = (await editorText(page)).trimEnd().split("\n").length;
  await typeLinesAfter(page, lastEdge, ["  - { from: report, to: sign }", "  - { from: sign, to: __end__ }"]);
  // An edge to an undeclared node is a problem: the preview keeps the last valid graph and says why.
  await expect(page.getByTestId("preview-problem")).toContainText('unknown node "sign"');
  await expect(preview).toHaveAttribute("data-node-count", "5");
  await expect.poll(async () => (await editorMarkers(page)).length, { timeout: 15_000 }).toBeGreaterThan(0);
  await page.screenshot({ path: "e2e/screenshots/editor-invalid.png" });

  // Declare it (typed into the nodes list), and drop the old report → END edge.
  const edgesLine = (await editorText(page)).split("\n").findIndex((l) => l.startsWith("edges:")) + 1;
  await typeLinesAfter(page, edgesLine - 2, ["", "  - name: sign", "    node_type: function", '    config: { op: template, template: "signed: {{input}}" }']);
  await expect(page.getByTestId("preview-problem")).toHaveCount(0);
  await expect(preview).toHaveAttribute("data-node-count", "6");

  // Remove `report → END` so report has one way out.
  const lines = (await editorText(page)).split("\n");
  const reportEnd = lines.findIndex((l) => l.includes("from: report, to: __end__"));
  await placeCursor(page, reportEnd + 1, "start");
  await page.keyboard.press("Control+Shift+K"); // delete line
  await expect(preview).toHaveAttribute("data-edge-count", "5");
  expect(await editorText(page)).toContain("  - name: sign\n    node_type: function");
  await expect(page.getByTestId("validation")).toHaveAttribute("data-state", "valid", { timeout: 15_000 });
  await expect(page.locator('[data-testid="canvas-node"][data-node="sign"]')).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/editor.png" });

  // Clicking a node in the preview moves the editor's cursor to its YAML.
  await page.locator('[data-testid="canvas-node"][data-node="shout"]').click();
  const cursorLine = await page.evaluate(() => {
    const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): { getPosition(): { lineNumber: number } | null }[] } } }).__modexMonaco;
    return m.editor.getEditors()[0]?.getPosition()?.lineNumber ?? 0;
  });
  expect((await editorText(page)).split("\n")[cursorLine - 1]).toContain("name: shout");

  // Save with the keyboard: a new spec, then "no changes".
  await page.keyboard.press("Control+s");
  await expect(page.getByTestId("save-notice")).toHaveText("Saved as a new version");
  await expect(page).toHaveURL(new RegExp(`/graphs/${name}$`));
  await expect(page.getByTestId("dirty-state")).toHaveText("saved");
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+s");
  await expect(page.getByTestId("save-notice")).toHaveText(/No changes/);

  // A second version, then the side-by-side diff.
  await placeCursor(page, 2, "end"); // version: "1"
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Backspace");
  await page.keyboard.type('2"');
  await page.getByRole("button", { name: /^Save/ }).click();
  await expect(page.getByTestId("save-notice")).toHaveText("Saved as a new version");
  await page.getByRole("button", { name: "History" }).click();
  const diff = page.getByTestId("history-diff");
  await expect(diff).toContainText('version: "1"');
  await expect(diff).toContainText('version: "2"');
  await page.screenshot({ path: "e2e/screenshots/history-diff.png" });
  await page.keyboard.press("Escape");

  await page.goto("/graphs");
  const row = page.getByTestId("spec-row").filter({ hasText: name });
  await expect(row).toBeVisible();
  await expect(row.getByTestId("spec-node-count")).toHaveText("4");
  await page.screenshot({ path: "e2e/screenshots/graphs.png" });
  expect(pageErrors).toEqual([]);
});
