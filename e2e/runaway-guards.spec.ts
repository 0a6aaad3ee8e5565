import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { ModexServer, removeDir, tempDir } from "./support/modex-server";
import { auth, saveSpec } from "./support/session";

// What keeps a model's or an extension's misbehaviour from holding the server: the knowledge_base grep's
// regex time limit and extensions' call_timeout_ms, seen over HTTP on the production server.
test.describe.configure({ timeout: 120_000 });

/** GET /api/health every 50 ms until `stop` is set; resolves to the slowest answer's time (ms). */
async function slowestHealth(request: APIRequestContext, stop: { done: boolean }): Promise<{ slowestMs: number; answered: number }> {
  let slowestMs = 0;
  let answered = 0;
  while (!stop.done) {
    const started = performance.now();
    const res = await request.get("/api/health", { timeout: 60_000 });
    expect(res.ok()).toBe(true);
    slowestMs = Math.max(slowestMs, performance.now() - started);
    answered += 1;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { slowestMs, answered };
}

test("an agent's backtracking knowledge_base grep is stopped: the server keeps answering, the run goes on with a tool error", async ({ request }) => {
  await saveSpec(
    request,
    `name: backtracking-grep
version: "1"
nodes:
  - name: searcher
    node_type: agent
    config: { instructions: "Search the knowledge base." }
edges:
  - { from: __start__, to: searcher }
  - { from: searcher, to: __end__ }
`,
  );
  const health = { done: false };
  const watching = slowestHealth(request, health);
  // The stand-in model (e2e/support/fake-llm-server.mjs) writes 500 lines of `aaa…ab`, then greps `(a+)+$`.
  const created = await request.post("/api/graphs/instances", { headers: auth(), data: { spec: "backtracking-grep", input: "backtrack please" } });
  expect(created.status()).toBe(201);
  const { instanceId } = await created.json();
  const detail = async () => (await request.get(`/api/graphs/instances/${instanceId}`, { headers: auth() })).json();
  await expect.poll(async () => (await detail()).summary.status, { timeout: 60_000 }).toBe("completed");
  health.done = true;
  const { slowestMs, answered } = await watching;
  expect(answered).toBeGreaterThan(5);
  // The regex may hold the thread for its 1 s limit, never for good: every health check answered well within.
  expect(slowestMs).toBeLessThan(5_000);

  const result = (await detail()).summary.result.map((p: { content: string }) => p.content).join("\n");
  expect(result).toContain("grep answered: regex (a+)+$ ran over 1000 ms (it backtracks): use a simpler one");
  const events = await (await request.get(`/api/graphs/instances/${instanceId}/events?limit=10000`, { headers: auth() })).json();
  type Activity = { kind: string; tool?: string; isError?: boolean; content?: string };
  const results = (events.events ?? events)
    .map((e: { event: { type: string; activity?: Activity } }) => e.event.activity)
    .filter((a: Activity | undefined): a is Activity => a?.kind === "tool_result" && a.tool === "knowledge_base");
  expect(results.map((a: Activity) => a.isError)).toEqual([false, true]);
  expect(results[1].content).toMatch(/ran over 1000 ms/);
});

test("an extension whose hook never answers holds a chat turn no longer than extensions.yml's call_timeout_ms", async () => {
  const dataDir = tempDir("modex-hung-extension-");
  const extensionsDir = path.join(dataDir, "extensions");
  mkdirSync(extensionsDir);
  writeFileSync(path.join(extensionsDir, "extensions.yml"), "builtins: {}\ncall_timeout_ms: 300\n");
  writeFileSync(path.join(extensionsDir, "hung.mjs"), `export default { name: "hung", onBeforeLlmCall() { return new Promise(() => {}); } };\n`);
  const env = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo", MODEX_EXTENSIONS_DIR: extensionsDir };
  const server = await (await ModexServer.start({ dataDir, env })).ready();
  try {
    const { sessionId } = await server.json<{ sessionId: string }>("/api/chat", { method: "POST", body: "{}" });
    const sent = performance.now();
    const outcome = await server.json<{ handled: string }>(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: "hello there" }) });
    expect(outcome.handled).toBe("started");
    await expect.poll(async () => (await server.json<{ running: boolean }>(`/api/chat/${sessionId}`)).running, { timeout: 30_000, intervals: [50] }).toBe(false);
    // Skipped after 300 ms, not the default 10 s, and not for good.
    expect(performance.now() - sent).toBeLessThan(5_000);
    const { events } = await server.json<{ events: { type: string; content?: string }[] }>(`/api/chat/${sessionId}/events`);
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", content: "You said: hello there. Modex is listening." });
    const report = await server.json<{ extensions: { name: string; calls: number; failures: number }[] }>("/api/extensions");
    expect(report.extensions.find((e) => e.name === "hung")).toMatchObject({ calls: 1, failures: 1 });
    expect(server.output).toMatch(/hung[^\n]*BEFORE_LLM_CALL|BEFORE_LLM_CALL[^\n]*hung/);
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});
