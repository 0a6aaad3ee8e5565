import { createServer, type Server } from "node:http";
import { expect, test } from "@playwright/test";
import { freePort, ModexServer, removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";

/**
 * A chat turn cut by kill -9 after its first tool finished resumes from its checkpoint on the restarted
 * server (same data directory): the turn completes, the tool ran once. The model is the browser tests'
 * stand-in server ("crawl <url>": one http_fetch, then a slow read-out); the tool is the app's real
 * http_fetch, GETting a slow page served here, which counts its requests.
 */
const FAKE_LLM = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo", MODEX_FETCH_ALLOWED_HOSTS: "127.0.0.1" };

type ChatEvent = Record<string, unknown> & { seq: number; type: string; turnId: string };

/** A page that takes `delayMs` to answer; `hits` counts its GETs. */
async function slowPage(delayMs: number): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("The page: crash-safe turns."), delayMs);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}/page`, hits: () => hits, server };
}

test("a chat turn killed (kill -9) after its tool finished resumes on the restarted server: it completes, the tool ran once", async ({ page }) => {
  test.setTimeout(180_000);
  const dataDir = tempDir("modex-chat-resume-");
  const slow = await slowPage(1_500);
  let server = await ModexServer.start({ dataDir, env: FAKE_LLM });
  try {
    await server.ready();
    const { sessionId } = await server.json<{ sessionId: string }>("/api/chat", { method: "POST", body: JSON.stringify({ agent: "researcher" }) });
    const started = await server.json<{ handled: string; turnId: string }>(`/api/chat/${sessionId}/messages`, { method: "POST", body: JSON.stringify({ message: `crawl ${slow.url}` }) });
    expect(started.handled).toBe("started");
    const events = async () => (await server.json<{ events: ChatEvent[] }>(`/api/chat/${sessionId}/events`)).events;
    // Iteration 1's tool finished (its result is stored) and the second model call streams: kill -9 now.
    await expect.poll(async () => (await events()).some((e) => e.type === "text_delta" && String(e.text).includes("read")), { timeout: 30_000 }).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // what the events read showed is committed (group commit)
    const before = await events();
    expect(before.filter((e) => e.type === "tool_result")).toEqual([expect.objectContaining({ name: "http_fetch", isError: false, content: expect.stringContaining("crash-safe turns") })]);
    expect(before.some((e) => e.type === "turn_completed")).toBe(false);
    expect(slow.hits()).toBe(1);
    await server.killHard();

    server = await ModexServer.start({ dataDir, env: FAKE_LLM });
    await server.ready();
    await expect.poll(async () => (await events()).some((e) => e.type === "turn_completed"), { timeout: 60_000 }).toBe(true);
    const after = await events();
    expect(after.slice(0, before.length)).toEqual(before);
    // Then what the first server streamed until it died, the notice, and the resumed read-out.
    const at = after.findIndex((e) => e.type === "notice");
    expect(after.slice(before.length, at).every((e) => e.type === "text_delta")).toBe(true);
    expect(after.slice(at + 1).filter((e) => e.type !== "text_delta").map((e) => e.type)).toEqual(["turn_completed"]);
    expect(after[at]).toMatchObject({ type: "notice", command: "resume", turnId: started.turnId, text: expect.stringContaining("resumed after a restart, from the end of step 1") });
    expect(after.at(-1)).toMatchObject({ type: "turn_completed", turnId: started.turnId, stopReason: "completed", content: expect.stringContaining("Done reading.") });
    expect(after.some((e) => e.type === "turn_failed")).toBe(false);
    expect(after.filter((e) => e.type === "tool_call")).toHaveLength(1);
    expect(slow.hits()).toBe(1); // the tool ran once: the resumed turn went on from its result
    expect(await server.json(`/api/chat/${sessionId}`)).toMatchObject({ running: false, turns: 1 });

    // The chat view: the tool once with its result, the notice, the answer once (what streamed before the
    // crash after the checkpoint is not shown twice).
    await page.request.post(`${server.url}/api/auth/login`, { data: { token: SERVER_TOKEN } });
    await page.goto(`${server.url}/chat?session=${sessionId}`);
    const turn = page.getByTestId("chat-turn");
    await expect(turn).toHaveAttribute("data-state", "completed");
    await expect(turn.getByTestId("chat-tool")).toHaveCount(1);
    await expect(turn.getByTestId("chat-notice")).toHaveText(/^resumed after a restart, from the end of step 1/);
    await expect(turn.getByTestId("chat-answer")).toContainText("Done reading.");
    expect((await turn.getByTestId("chat-answer").innerText()).match(/\bread0\b/g)).toHaveLength(1);
    if (process.env.MODEX_E2E_SCREENSHOTS) {
      for (const colorScheme of ["light", "dark"] as const) {
        for (const width of [1024, 1440]) {
          await page.emulateMedia({ colorScheme });
          await page.setViewportSize({ width, height: 800 });
          await page.screenshot({ path: `${process.env.MODEX_E2E_SCREENSHOTS}/chat-resumed-${width}-${colorScheme}.png` });
        }
      }
    }
  } finally {
    await server.stop();
    slow.server.close();
    removeDir(dataDir);
  }
});
