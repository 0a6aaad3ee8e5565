import { createServer, type Server } from "node:http";
import { writeFileSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { freePort, ModexServer, removeDir, SERVER_TOKEN, tempDir } from "./support/modex-server";

/**
 * An agent node's turn cut by kill -9 during its second model call resumes from its iteration checkpoint
 * when the restarted server recovers the run (same data directory): the run completes, the tool before
 * the checkpoint ran once, the delivery made before it is in the result once, and the instance view says
 * the turn resumed (its trace marks where). The model is the browser tests' stand-in ("crawl <url>" as a
 * node's input: http_fetch and a first deliver, then a slow read-out and a second deliver); the tool is
 * the app's real http_fetch, GETting a page served here, which counts its requests.
 */
const FAKE_LLM = { MODEX_LLM_BASE_URL: `http://127.0.0.1:${process.env.MODEX_E2E_LLM_PORT}/v1`, MODEX_LLM_MODEL: "fake-echo", MODEX_FETCH_ALLOWED_HOSTS: "127.0.0.1" };

const SPEC = `
name: crawl-once
nodes:
  - name: crawler
    node_type: agent
    config: { instructions: "Read the page you are given and hand on what it says.", tools: [http_fetch] }
edges:
  - { from: __start__, to: crawler }
  - { from: crawler, to: __end__ }
`;

interface View {
  summary: { status: string; result: { content: unknown }[] | null };
  invocations: { node: string; status: string }[];
}

async function countingPage(): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { "content-type": "text/plain" }).end("The page: crash-safe agent nodes.");
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}/page`, hits: () => hits, server };
}

test("an agent node killed (kill -9) during its second step resumes from its checkpoint on the restarted server: the run completes, its tool ran once", async ({ page }) => {
  test.setTimeout(120_000);
  const dataDir = tempDir("modex-node-resume-");
  const specs = tempDir("modex-node-resume-specs-");
  writeFileSync(path.join(specs, "crawl-once.yml"), SPEC);
  const env = { ...FAKE_LLM, MODEX_SPECS_DIR: specs };
  const site = await countingPage();
  let server = await ModexServer.start({ dataDir, env });
  try {
    await server.ready();
    const { instanceId } = await server.json<{ instanceId: string }>("/api/graphs/instances", { method: "POST", body: JSON.stringify({ spec: "crawl-once", input: `crawl ${site.url}` }) });
    // The first step's tools finished and its checkpoint is committed (read from another connection);
    // the second model call streams its slow read-out: kill -9 now.
    const reader = new BetterSqlite3(path.join(dataDir, "modex.db"), { readonly: true });
    const checkpoints = () => (reader.prepare(`SELECT COUNT(*) AS n FROM agent_turn_snapshots WHERE session_id = ? AND turn_id LIKE 'node-turn:%'`).get(`${instanceId}:crawler`) as { n: number }).n;
    await expect.poll(checkpoints, { timeout: 30_000, intervals: [50] }).toBe(1);
    reader.close();
    expect(site.hits()).toBe(1);
    expect((await server.json<View>(`/api/graphs/instances/${instanceId}`)).summary.status).toBe("running");
    await server.killHard();

    server = await ModexServer.start({ dataDir, env });
    await server.ready();
    await expect.poll(async () => (await server.json<View>(`/api/graphs/instances/${instanceId}`)).summary.status, { timeout: 30_000 }).toBe("completed");
    const view = await server.json<View>(`/api/graphs/instances/${instanceId}`);
    // Both deliveries once: the one made before the checkpoint, and the one the resumed turn made.
    expect(view.summary.result!.map((p) => p.content)).toEqual(["first note", expect.stringContaining("crash-safe agent nodes")]);
    expect(view.invocations.filter((i) => i.node === "crawler").map((i) => i.status)).toEqual(["CRASHED", "COMPLETED"]);
    expect(site.hits()).toBe(1); // the tool ran once: the resumed turn went on from its result
    const events = (await server.json<{ event: { type: string; activity?: { kind: string; summary: string; turnId?: string } } }[]>(`/api/graphs/instances/${instanceId}/events?limit=1000`)).map((e) => e.event);
    const activities = events.flatMap((e) => (e.type === "node_activity" ? [e.activity!] : []));
    expect(activities.filter((a) => a.kind === "tool_call").map((a) => a.summary.split("(")[0])).toEqual(["http_fetch", "deliver", "deliver"]);
    expect(activities.filter((a) => a.kind === "turn_resumed")).toEqual([expect.objectContaining({ summary: expect.stringMatching(/^resumed after a restart, from the end of step 1/) })]);
    // The turn's trace marks where it picked up, between the dead server's spans and the new one's.
    const turnId = (activities.find((a) => a.kind === "turn_resumed") as { turnId?: string }).turnId!;
    const trace = await server.json<{ spans: { name: string; parentSpanId?: string }[] }>(`/api/graphs/instances/${instanceId}/trace?node=crawler&turn=${turnId}`);
    const names = trace.spans.map((s) => s.name);
    expect(names.filter((n) => n.startsWith("resumed"))).toEqual(["resumed after a restart, from the end of step 1"]);
    expect(names.indexOf("execute_tool http_fetch")).toBeLessThan(names.indexOf("resumed after a restart, from the end of step 1"));

    // The instance view: the crawler's second invocation opens with the notice; the timeline lists it.
    await page.request.post(`${server.url}/api/auth/login`, { data: { token: SERVER_TOKEN } });
    await page.goto(`${server.url}/instances/${instanceId}`);
    await expect(page.getByTestId("instance-view")).toHaveAttribute("data-status", "completed");
    await page.locator('[data-testid="canvas-node"][data-node="crawler"]').click();
    const invocations = page.getByTestId("agent-turn").getByTestId("agent-invocation");
    await expect(invocations).toHaveCount(2);
    await expect(invocations.nth(0)).toHaveAttribute("data-running", "false");
    await expect(invocations.nth(1).getByTestId("agent-resumed")).toHaveText(/^resumed after a restart, from the end of step 1/);
    await expect(invocations.nth(1).getByTestId("agent-turn-ended")).toContainText("completed");
    await page.getByLabel("Filter events by type").selectOption("node_activity");
    await expect(page.getByTestId("timeline-row").filter({ hasText: "agent turn resumed" })).toContainText("crawler: resumed after a restart, from the end of step 1");
    if (process.env.MODEX_E2E_SCREENSHOTS) {
      for (const colorScheme of ["light", "dark"] as const) {
        for (const [width, height] of [[1024, 768], [1440, 900]] as const) {
          await page.emulateMedia({ colorScheme });
          await page.setViewportSize({ width, height });
          await page.screenshot({ path: `${process.env.MODEX_E2E_SCREENSHOTS}/node-resumed-${width}-${colorScheme}.png` });
        }
      }
    }
  } finally {
    await server.stop();
    site.server.close();
    removeDir(dataDir);
    removeDir(specs);
  }
});
