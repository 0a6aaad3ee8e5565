import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext, type Page } from "@playwright/test";

/**
 * The access token of the server under test: MODEX_TOKEN when the run sets one, else the token the
 * server generated in its (fresh, temporary) data directory on first start.
 */
export function accessToken(): string {
  if (process.env.MODEX_TOKEN) return process.env.MODEX_TOKEN;
  const dir = process.env.MODEX_E2E_DATA_DIR;
  if (!dir) throw new Error("MODEX_E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  return readFileSync(path.join(dir, "access-token"), "utf8").trim();
}

/** The bearer header that authorizes an API request as the server's token. */
export const auth = () => ({ authorization: `Bearer ${accessToken()}` });

/** Signs the page's browser context in, as the login page does (a session cookie). */
export async function signIn(page: Page): Promise<void> {
  const res = await page.request.post("/api/auth/login", { data: { token: accessToken() } });
  if (!res.ok()) throw new Error(`login failed: HTTP ${res.status()} ${await res.text()}`);
}

/** Saves a spec through the API (for tests that are not about the editor). */
export async function saveSpec(request: APIRequestContext, yaml: string): Promise<void> {
  const res = await request.post("/api/trpc/specs.save", {
    data: { yaml },
    headers: auth(),
  });
  if (!res.ok()) throw new Error(`specs.save failed: HTTP ${res.status()} ${await res.text()}`);
}

/**
 * A graph whose one agent node, `writer`, may call the model once: with the stand-in model it cannot
 * deliver, so a run of it fails after a short turn with several kinds of agent activity.
 */
export function oneCallAgentSpec(name: string): string {
  return `name: ${name}
version: "1"
nodes:
  - name: writer
    node_type: agent
    config: { instructions: "Write it.", max_iterations: 1, max_turns: 1 }
edges:
  - { from: __start__, to: writer }
  - { from: writer, to: __end__ }
`;
}

/** The text of the editor's model (never the DOM, which only holds the visible lines). */
export function editorText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const m = (window as unknown as { __modexMonaco?: { editor: { getModels(): { getValue(): string; uri: { toString(): string } }[] } } }).__modexMonaco;
    const model = m?.editor.getModels().find((x) => x.uri.toString().endsWith("spec.yaml"));
    return model?.getValue() ?? "";
  });
}

/** Markers of any severity and owner on the editor's model (schema problems are warnings). */
export function editorMarkers(page: Page): Promise<{ owner: string; line: number; message: string }[]> {
  return page.evaluate(() => {
    const m = (window as unknown as { __modexMonaco?: { editor: { getModelMarkers(f: object): { owner: string; startLineNumber: number; message: string }[] } } }).__modexMonaco;
    return (m?.editor.getModelMarkers({}) ?? []).map((x) => ({ owner: x.owner, line: x.startLineNumber, message: x.message }));
  });
}

/**
 * Types lines into Monaco after line `after` (1-based), keystroke by
 * keystroke. Monaco carries indentation over on Enter; each line first selects that indentation so
 * the line lands exactly as written.
 */
export async function typeLinesAfter(page: Page, after: number, lines: readonly string[]): Promise<void> {
  await placeCursor(page, after, "end");
  for (const line of lines) {
    await page.keyboard.press("Enter");
    await page.keyboard.press("Shift+Home");
    await page.keyboard.press("Shift+Home");
    if (line !== "") await page.keyboard.type(line, { delay: 5 });
    await page.keyboard.press("Escape"); // close a completion list so the next Enter is a new line
  }
}

/**
 * Puts the cursor at the start or end of a model line (1-based) and focuses the editor. Through the
 * API: arrow keys move by visual lines, which word wrap makes differ from the model's.
 */
export async function placeCursor(page: Page, line: number, where: "start" | "end"): Promise<void> {
  await page.evaluate(
    ({ line, where }) => {
      const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): { getModel(): { getLineMaxColumn(n: number): number }; setPosition(p: object): void; focus(): void }[] } } }).__modexMonaco;
      const ed = m.editor.getEditors()[0];
      ed.setPosition({ lineNumber: line, column: where === "start" ? 1 : ed.getModel().getLineMaxColumn(line) });
      ed.focus();
    },
    { line, where },
  );
}

/** The number of lines of the editor's text. */
export async function lineCount(page: Page): Promise<number> {
  return (await editorText(page)).split("\n").length;
}

/** Replaces the editor's whole text through Monaco's model (one undoable edit, as a paste would be). */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await page.evaluate((t) => {
    type Ed = { getModel(): { getFullModelRange(): object }; executeEdits(s: string, e: object[]): boolean };
    const m = (window as unknown as { __modexMonaco: { editor: { getEditors(): Ed[] } } }).__modexMonaco;
    const ed = m.editor.getEditors()[0];
    ed.executeEdits("e2e", [{ range: ed.getModel().getFullModelRange(), text: t }]);
  }, text);
}

/** On a chat turn's trace page: the agent span first, a model span, the summary, and a span's attributes. */
export async function expectTurnTrace(page: Page): Promise<void> {
  const spans = page.getByTestId("trace-span");
  await expect(spans.first()).toHaveAttribute("data-kind", "agent", { timeout: 20_000 });
  await expect(page.locator('[data-testid="trace-span"][data-kind="model"]').first()).toBeVisible();
  await expect(page.getByTestId("trace-summary")).toContainText("spans");
  await spans.first().getByRole("button").click();
  await expect(spans.first()).toContainText("gen_ai.operation.name");
}
