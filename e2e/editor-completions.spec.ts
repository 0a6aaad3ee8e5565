import { expect, type Page, test } from "@playwright/test";
import { editorText, placeCursor, setEditorText, signIn } from "./support/session";

test.describe.configure({ timeout: 120_000 });
// The screenshots show the dark theme (the app and the editor follow the system's light or dark).
test.use({ colorScheme: "dark" });

/** Names the node `wait` in two edges but does not declare it: the test declares it through completion. */
const START = (name: string) => `name: ${name}
nodes:
  - name: greet
    node_type: function
    config: { op: template, template: "hi {{input}}" }
edges:
  - { from: __start__, to: greet }
  - { from: greet, to: wait }
`;

async function lineOf(page: Page, text: string): Promise<number> {
  return (await editorText(page)).split("\n").findIndex((l) => l.includes(text)) + 1;
}

/**
 * A new line holding exactly `text`: Monaco carries the indentation over on Enter, so it is selected
 * first (Home goes to the first non-blank, then the column 1), and the list a typed space opened is closed.
 */
async function newLine(page: Page, text: string) {
  await page.keyboard.press("Enter");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.type(text, { delay: 20 });
}

/** Ctrl+Space, as a person asks for suggestions; the list is waited for before anything is accepted. */
async function suggest(page: Page, expected: readonly string[]) {
  const widget = page.locator(".suggest-widget");
  await page.keyboard.press("Control+Space");
  await expect(widget).toBeVisible({ timeout: 15_000 });
  for (const label of expected) await expect(widget.locator(".monaco-list-row", { hasText: label }).first()).toBeVisible();
  return widget;
}

/** Types `text`, then waits for the list to show `label` as its focused row, and accepts it with Enter. */
async function narrowAndAccept(page: Page, text: string, label: string) {
  await page.keyboard.type(text, { delay: 20 });
  await expect(page.locator(".suggest-widget .monaco-list-row.focused")).toContainText(label);
  await page.keyboard.press("Enter");
}

test("completion in the graph editor: keys, node types, config keys and edge targets, typed and accepted; hover documents a type", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const name = `e2e-completions-${Date.now().toString(36)}`;
  await page.goto(`/graphs/new?name=${name}`);
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  await setEditorText(page, START(name));
  await expect(page.getByTestId("validation")).toHaveAttribute("data-state", "invalid", { timeout: 15_000 });

  // A new node after greet: its keys, then the registry's node types after `node_type: `.
  await placeCursor(page, await lineOf(page, "config: { op: template"), "end");
  await newLine(page, "  - name: wait");
  await page.keyboard.press("Escape");
  await newLine(page, "    node_t");
  await suggest(page, ["node_type"]);
  await page.keyboard.press("Enter");
  // Accepting the key opens the list again, with the node types and their descriptions.
  const widget = await suggest(page, ["function", "delay", "human_input", "fan_out", "join", "subgraph", "agent"]);
  await page.screenshot({ path: "e2e/screenshots/editor-completions-types.png" });
  await narrowAndAccept(page, "dela", "delay");
  await expect(widget).toBeHidden();
  expect(await editorText(page)).toContain("  - name: wait\n    node_type: delay");

  // The delay type's config keys, inside the config block the `config` key opens.
  await newLine(page, "    conf");
  await suggest(page, ["config"]);
  await page.keyboard.press("Enter");
  await suggest(page, ["ms", "seconds", "next"]);
  await page.screenshot({ path: "e2e/screenshots/editor-completions-config.png" });
  await narrowAndAccept(page, "ms", "ms");
  await page.keyboard.type("5", { delay: 20 });
  await page.keyboard.press("Escape");
  expect(await editorText(page)).toContain("    node_type: delay\n    config:\n      ms: 5\n");

  // An edge from wait: its target among the spec's nodes and __end__.
  const lastEdge = await lineOf(page, "{ from: greet, to: wait }");
  await placeCursor(page, lastEdge, "end");
  await newLine(page, "  - { from: wait, to: ");
  await page.keyboard.press("Escape");
  await suggest(page, ["greet", "wait", "__end__"]);
  await narrowAndAccept(page, "__e", "__end__");
  // (Monaco closed the brace when it was typed.)
  expect(await editorText(page)).toMatch(/ {2}- \{ from: wait, to: __end__ ?\}/);

  // With wait declared and reaching END, the server compiles the spec.
  await expect(page.getByTestId("validation")).toHaveAttribute("data-state", "valid", { timeout: 15_000 });
  await expect(page.getByTestId("spec-preview")).toHaveAttribute("data-node-count", "4");

  // Hover over a node type shows what the type does.
  const typeLine = await lineOf(page, "node_type: delay");
  await page.evaluate((line) => {
    type Ed = { setPosition(p: object): void; focus(): void; trigger(s: string, id: string, p: unknown): void };
    const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): Ed[] } } }).__modexMonaco;
    const ed = m.editor.getEditors()[0];
    ed.setPosition({ lineNumber: line, column: 18 }); // inside "delay"
    ed.focus();
    ed.trigger("e2e", "editor.action.showHover", {});
  }, typeLine);
  const hover = page.locator(".monaco-hover:not(.hidden)").first();
  await expect(hover).toContainText("Sleeps for a configured duration", { timeout: 15_000 });
  await page.screenshot({ path: "e2e/screenshots/editor-completions-hover.png" });
  await page.keyboard.press("Escape");

  // An agent node's `agent:` offers the app's named agents.
  await placeCursor(page, await lineOf(page, "ms: 5"), "end");
  await newLine(page, "  - name: helper");
  await page.keyboard.press("Escape");
  await newLine(page, "    node_type: agent");
  await page.keyboard.press("Escape");
  await newLine(page, "    config: { agent: ");
  await page.keyboard.press("Escape");
  await suggest(page, ["researcher", "writer"]);
  await page.keyboard.press("Escape");
  expect(pageErrors).toEqual([]);
});

/** Edges and nodes as flow collections, `wait`'s config spanning several lines: its `next` is completed inside it. */
const FLOW = (name: string) => `name: ${name}
nodes: [
  {name: greet, node_type: function, config: {op: template, template: "hi {{input}}, # [not a comment", next: wait}},
  {name: wait, node_type: delay, config: {
      ms: 1,
  }},
]
edges: [{from: __start__, to: greet}]
`;

test("completion inside a flow collection spanning several lines: config keys, then the node a key names", async ({ page }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const name = `e2e-flow-completions-${Date.now().toString(36)}`;
  await page.goto(`/graphs/new?name=${name}`);
  await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
  await setEditorText(page, FLOW(name));

  await placeCursor(page, await lineOf(page, "ms: 1,"), "end");
  await newLine(page, "      ");
  // The delay type's config keys, less the `ms` already written.
  const widget = await suggest(page, ["next", "seconds"]);
  await expect(widget.locator(".monaco-list-row", { hasText: /^ms/ })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/editor-completions-flow.png" });
  await narrowAndAccept(page, "ne", "next");
  // Accepting `next` opens the list again with the graph's nodes (a flow map's key is inserted as `key: `).
  await suggest(page, ["greet", "wait", "__end__"]);
  await narrowAndAccept(page, "__e", "__end__");
  expect(await editorText(page)).toContain("config: {\n      ms: 1,\n      next: __end__\n  }},");
  expect(pageErrors).toEqual([]);
});
