import { expect, test, type Page } from "@playwright/test";
import { accessToken, signIn } from "./support/session";

// MCP in the app: config/mcp/everything.yml declares the MCP project's reference server (a dev
// dependency), started over stdio the first time an agent uses it. An agent naming `everything__echo`
// calls it in the chat through the stand-in model (which speaks the demo model's protocol: `call <tool>
// {json}`), the Agents page shows the server's state and tools, and a killed server is restarted at the
// next call. Serial: the steps share the one server process.
test.describe.configure({ mode: "serial" });

const AGENT = "mcp-tester";
const DEFINITION = `name: ${AGENT}
description: Calls the MCP reference server's echo tool.
instructions: Use everything__echo when asked.
tools: [everything__echo]
`;

type McpServerInfo = { name: string; state: string; reason: string | null; pid: number | null; starts: number; tools: string[] | null };

async function everything(page: Page): Promise<McpServerInfo> {
  const res = await page.request.get("/api/agents", { headers: { authorization: `Bearer ${accessToken()}` } });
  expect(res.ok()).toBe(true);
  const body = (await res.json()) as { mcpServers: McpServerInfo[]; tools: { name: string; server?: string }[] };
  return body.mcpServers.find((s) => s.name === "everything")!;
}

async function askInChat(page: Page, text: string) {
  await page.goto(`/chat?agent=${AGENT}`);
  await expect(page.getByTestId("chat-agent-select")).toHaveValue(AGENT);
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill(text);
  await box.press("Enter");
  await expect(page).toHaveURL(/\/chat\?session=\d+/);
  const turn = page.getByTestId("chat-turn").last();
  await expect(turn).toHaveAttribute("data-state", "completed", { timeout: 30_000 });
  return turn;
}

test("an agent calls an MCP tool in the chat; the Agents page shows the server running with its tools", async ({ page }) => {
  await signIn(page);
  const saved = await page.request.put(`/api/agents/${AGENT}`, { data: DEFINITION, headers: { authorization: `Bearer ${accessToken()}`, "content-type": "application/yaml" } });
  expect(saved.ok(), await saved.text()).toBe(true);

  // Declared, not started: nothing runs until an agent uses it.
  const before = await everything(page);
  expect(before).toMatchObject({ state: "not_started", tools: null, starts: 0 });
  await page.goto(`/agents?agent=${AGENT}`);
  const panel = page.getByTestId("mcp-server-everything");
  await expect(panel).toHaveAttribute("data-state", "not_started");
  await expect(panel).toContainText("Starts when an agent first uses it");

  const turn = await askInChat(page, 'call everything__echo {"message": "hello from Chromium"}');
  const chip = turn.getByTestId("chat-tool");
  await expect(chip).toContainText("✓ everything__echo");
  await chip.locator("summary").click();
  await expect(chip).toContainText("Echo: hello from Chromium");
  await expect(turn.getByTestId("chat-answer")).toContainText("everything__echo answered: Echo: hello from Chromium");
  await page.screenshot({ path: "e2e/screenshots/mcp-chat.png" });

  const after = await everything(page);
  expect(after).toMatchObject({ state: "running", starts: 1 });
  expect(after.tools).toEqual(expect.arrayContaining(["echo", "get-sum"]));
  await page.goto(`/agents?agent=${AGENT}`);
  await expect(panel).toHaveAttribute("data-state", "running", { timeout: 10_000 });
  await expect(panel).toContainText(/\d+ tools/);
  const catalog = page.getByTestId("tool-catalog");
  await expect(catalog).toContainText("everything__echo");
  await expect(catalog).toContainText("MCP · everything");
  await page.screenshot({ path: "e2e/screenshots/mcp-agents-page.png" });
});

test("a crashed MCP server shows as failed with why, and the agent's next call restarts it", async ({ page }) => {
  await signIn(page);
  const running = await everything(page);
  expect(running.state).toBe("running");
  process.kill(running.pid!, "SIGKILL");
  await expect.poll(async () => (await everything(page)).state, { timeout: 10_000 }).toBe("failed");
  expect((await everything(page)).reason).toContain("killed by SIGKILL");
  await page.goto(`/agents?agent=${AGENT}`);
  const panel = page.getByTestId("mcp-server-everything");
  await expect(panel).toHaveAttribute("data-state", "failed", { timeout: 10_000 });
  await expect(panel).toContainText("killed by SIGKILL");
  await page.screenshot({ path: "e2e/screenshots/mcp-server-failed.png" });

  const turn = await askInChat(page, 'call everything__echo {"message": "after the crash"}');
  await expect(turn.getByTestId("chat-answer")).toContainText("Echo: after the crash");
  expect(await everything(page)).toMatchObject({ state: "running", starts: 2 });
});

test("Stop while a long MCP tool runs ends the turn at once: the call is cut, not waited for", async ({ page }) => {
  // The reference server's long operation takes 30 s here; Stop must not wait for it (runtime path A:
  // the control-drain interceptor also watches the channel while a tool runs).
  const name = "mcp-long-tester";
  const definition = `name: ${name}\ndescription: Calls a long MCP tool.\ninstructions: Use it when asked.\ntools: [everything__trigger-long-running-operation]\n`;
  await signIn(page);
  const saved = await page.request.put(`/api/agents/${name}`, { data: definition, headers: { authorization: `Bearer ${accessToken()}`, "content-type": "application/yaml" } });
  expect(saved.ok(), await saved.text()).toBe(true);
  await page.goto(`/chat?agent=${name}`);
  await expect(page.getByTestId("chat-agent-select")).toHaveValue(name);
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill('call everything__trigger-long-running-operation {"duration": 30, "steps": 3}');
  await box.press("Enter");
  const turn = page.getByTestId("chat-turn").last();
  await expect(turn.getByTestId("chat-tool")).toContainText("everything__trigger-long-running-operation", { timeout: 20_000 });
  await page.waitForTimeout(500);
  const stopped = Date.now();
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await expect(turn).toHaveAttribute("data-state", "stopped", { timeout: 10_000 });
  expect(Date.now() - stopped).toBeLessThan(10_000);
  await expect(turn.getByTestId("chat-answer")).not.toContainText("Long running operation completed");
});
