import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { modexctl } from "./support/modexctl";
import { auth, signIn } from "./support/session";

// The training_data hook tags a chat turn that completed; a person can exclude it on its trace page; the
// Traces list filters the training turns and exports them as JSONL (the stand-in model answers).
test.describe.configure({ timeout: 120_000 });

interface Line {
  messages: { role: string; content: string | null }[];
  metadata: { sessionId: string; turnId: string };
}

const parse = (text: string): Line[] => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line);

test("training data: a completed chat turn is tagged, the trace page's choice persists, the list filters it and the export downloads it", async ({ page, baseURL }) => {
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await signIn(page);
  const request = page.request;
  const title = `Training data check ${Date.now()}`;
  const chat = (await (await request.post("/api/chat", { headers: auth(), data: {} })).json()) as { sessionId: string };
  expect((await request.post(`/api/chat/${chat.sessionId}/messages`, { headers: auth(), data: { message: title } })).status()).toBeLessThan(300);
  const turnOf = async () => {
    const { turns } = (await (await request.get("/api/traces?source=chat&limit=50", { headers: auth() })).json()) as { turns: { turnId: string; training: boolean; source: { sessionId?: string } }[] };
    return turns.find((t) => t.source.sessionId === chat.sessionId);
  };
  await expect.poll(async () => (await turnOf())?.training, { timeout: 30_000 }).toBe(true);
  const { turnId } = (await turnOf())!;

  // REST: the turn is a line of the export, the user's message and the answer in it.
  const exported = parse(await (await request.get("/api/traces/training.jsonl?source=chat", { headers: auth() })).text()).find((l) => l.metadata.turnId === turnId);
  expect(exported?.messages.map((m) => m.role)).toContain("assistant");
  expect(exported?.messages).toContainEqual({ role: "user", content: title });

  // The trace page: included (the hook's tag); excluded by a click, and still after a reload.
  await page.goto(`/traces?session=${chat.sessionId}&turn=${turnId}`);
  const toggle = page.getByRole("button", { name: /^Training data:/ });
  await expect(toggle).toHaveText("Training data: included");
  await expect(page.getByTestId("trace-training")).toContainText("tagged by the training_data hook");
  await toggle.click();
  await expect(toggle).toHaveText("Training data: excluded");
  await page.reload();
  await expect(toggle).toHaveText("Training data: excluded");
  await expect(page.getByTestId("trace-training")).toContainText("your choice");
  expect(parse(await (await request.get("/api/traces/training.jsonl", { headers: auth() })).text()).some((l) => l.metadata.turnId === turnId)).toBe(false);
  await toggle.click();
  await expect(toggle).toHaveText("Training data: included");

  // The list: the filter keeps it (with its badge); the export link downloads the filter's lines.
  await page.goto("/traces?source=chat");
  await page.getByRole("checkbox", { name: "Training data" }).check();
  await expect(page).toHaveURL(/\/traces\?source=chat&training=1$/);
  const row = page.getByTestId("trace-row").filter({ hasText: title });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("trace-training-badge")).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/traces-training.png" });
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export JSONL" }).click()]);
  expect(download.suggestedFilename()).toBe("training.jsonl");
  expect(parse(readFileSync((await download.path())!, "utf8")).map((l) => l.metadata.turnId)).toContain(turnId);

  // modexctl prints the same lines.
  const cli = await modexctl(baseURL!, "traces", "--training", "--source", "chat");
  expect(cli.code, cli.stderr).toBe(0);
  expect(parse(cli.stdout).map((l) => l.metadata.turnId)).toContain(turnId);
  expect(pageErrors).toEqual([]);
});
