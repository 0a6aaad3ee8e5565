import { expect, type Page, test } from "@playwright/test";
import { editorMarkers, editorText, placeCursor, signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });

/** Runs a Monaco editor action (hover, suggest) on the editor, as its keybinding would. */
async function editorAction(page: Page, id: string): Promise<void> {
  await page.evaluate((actionId) => {
    const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): { trigger(source: string, id: string, payload: unknown): void }[] } } }).__modexMonaco;
    m.editor.getEditors()[0].trigger("e2e", actionId, {});
  }, id);
}

/**
 * Inserts lines after model line `after` through the editor's API (one undoable edit). This test is about
 * what the editor knows, not typing: a completion list that opens late under load cannot eat a key here.
 */
async function insertLinesAfter(page: Page, after: number, lines: readonly string[]): Promise<void> {
  await page.evaluate(
    ({ after, text }) => {
      type Editor = { getModel(): { getLineMaxColumn(n: number): number }; executeEdits(source: string, edits: object[]): boolean; focus(): void };
      const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): Editor[] } } }).__modexMonaco;
      const ed = m.editor.getEditors()[0];
      const column = ed.getModel().getLineMaxColumn(after);
      ed.executeEdits("e2e", [{ range: { startLineNumber: after, startColumn: column, endLineNumber: after, endColumn: column }, text }]);
      ed.focus();
    },
    { after, text: lines.map((l) => `\n${l}`).join("") },
  );
}

async function lineOf(page: Page, text: string): Promise<number> {
  return (await editorText(page)).split("\n").findIndex((l) => l.includes(text)) + 1;
}

test("the editor knows the spec format: join badge, hover docs, completion of node types, the compiler's errors as markers", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  await page.goto("/graphs/map-reduce");
  const preview = page.getByTestId("spec-preview");
  await expect(preview).toHaveAttribute("data-node-count", "7", { timeout: 60_000 });
  // The preview comes with the page's HTML; Monaco replaces the plain text area once it has loaded.
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  // reduce has three predecessors and waits for all of them: it is marked as a join.
  await expect(page.locator('[data-testid="canvas-node"][data-node="reduce"]').getByTestId("join-badge")).toBeVisible();
  await expect(page.getByTestId("join-badge")).toHaveCount(1);

  // Hover on a field shows its documentation from the spec's JSON Schema.
  const fanOutLine = await lineOf(page, "node_type: fan_out");
  await page.evaluate((line) => {
    const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): { setPosition(p: object): void; focus(): void }[] } } }).__modexMonaco;
    const ed = m.editor.getEditors()[0];
    ed.setPosition({ lineNumber: line, column: 8 }); // inside "node_type"
    ed.focus();
  }, fanOutLine);
  await editorAction(page, "editor.action.showHover");
  const hover = page.locator(".monaco-hover:not(.hidden)").first();
  await expect(hover).toBeVisible({ timeout: 15_000 });
  await expect(hover).toContainText(/fan|branch|deliver/i);
  await page.screenshot({ path: "e2e/screenshots/editor-hover.png" });
  await page.keyboard.press("Escape");

  // Completion offers the registered node types for a new node's node_type.
  await insertLinesAfter(page, await lineOf(page, "into: total"), ["", "  - name: later", "    node_type: "]);
  await placeCursor(page, (await lineOf(page, "  - name: later")) + 1, "end");
  await editorAction(page, "editor.action.triggerSuggest");
  const suggest = page.locator(".suggest-widget");
  await expect(suggest).toBeVisible({ timeout: 15_000 });
  for (const type of ["human_input", "delay", "subgraph"]) await expect(suggest).toContainText(type);
  await page.screenshot({ path: "e2e/screenshots/editor-completion.png" });
  await page.keyboard.press("Escape");

  // Finish the node as a delay that nothing delivers to: valid YAML and schema, but the compiler on
  // the server rejects an unreachable node, and its marker sits on that node's line.
  await expect(suggest).toBeHidden();
  await page.evaluate(() => {
    type Editor = { getModel(): { getValue(): string; setValue(v: string): void } };
    const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): Editor[] } } }).__modexMonaco;
    const model = m.editor.getEditors()[0].getModel();
    model.setValue(model.getValue().replace("  - name: later\n    node_type: \n", "  - name: later\n    node_type: delay\n    config: { ms: 5 }\n"));
  });
  expect(await editorText(page)).toContain("  - name: later\n    node_type: delay\n    config: { ms: 5 }");
  await expect
    .poll(async () => (await editorMarkers(page)).filter((m) => m.owner === "modex-server").map((m) => m.message).join("\n"), { timeout: 15_000 })
    .toMatch(/later/);
  const server = (await editorMarkers(page)).filter((m) => m.owner === "modex-server");
  const laterLine = await lineOf(page, "  - name: later");
  expect(server.some((m) => m.line >= laterLine && m.line <= laterLine + 2)).toBe(true);
  await expect(page.getByTestId("validation")).not.toHaveAttribute("data-state", "valid");
  await page.screenshot({ path: "e2e/screenshots/editor-server-error.png" });
  expect(pageErrors).toEqual([]);
});
