import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { CLI, modexctl } from "./support/modexctl";

test("modexctl runs an example graph, answers its human input and reports its status", async ({ baseURL }) => {
  const specs = await modexctl(baseURL!, "specs");
  expect(specs.code, specs.stderr).toBe(0);
  expect(specs.stdout).toContain("approval-gate");

  const started = await modexctl(baseURL!, "run", "approval-gate", "--input", "release 12", "--json");
  expect(started.code, started.stderr).toBe(0);
  const { instanceId } = JSON.parse(started.stdout) as { instanceId: string };

  await expect
    .poll(async () => JSON.parse((await modexctl(baseURL!, "status", instanceId, "--json")).stdout).summary.status, { timeout: 15_000 })
    .toBe("paused");
  const waiting = await modexctl(baseURL!, "status", instanceId);
  expect(waiting.stdout).toMatch(/waiting for input at approve: Approve this deploy\?/);

  const answered = await modexctl(baseURL!, "answer", instanceId, "yes");
  expect(answered.code, answered.stderr).toBe(0);
  const events = await modexctl(baseURL!, "events", instanceId, "--follow", "--interval", "100");
  expect(events.stdout).toMatch(/running → completed/);

  const done = await modexctl(baseURL!, "status", instanceId);
  expect(done.stdout).toMatch(/status\s+completed/);
  expect(done.stdout).toMatch(/result\s+published \(answer: yes\)/);

  const listed = await modexctl(baseURL!, "ls", "--status", "completed");
  expect(listed.stdout).toContain(instanceId);
});

test("modexctl run --wait completes a fan-out graph; errors have distinct exit codes", async ({ baseURL }) => {
  const res = await modexctl(baseURL!, "run", "map-reduce", "--input", '["durable","graphs"]', "--wait");
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/status\s+completed/);
  expect(res.stdout).toMatch(/result\s+13/);

  expect((await modexctl(baseURL!, "status", "1")).code).toBe(2);
  expect((await modexctl(baseURL!, "specs", "--token", "wrong-token")).code).toBe(3);
  expect((await modexctl(baseURL!, "frobnicate")).code).toBe(1);
});

test("without credentials the REST API answers 401 and a page leads to the login page", async ({ playwright, browser, baseURL }) => {
  const anonymous = await playwright.request.newContext({ baseURL });
  expect((await anonymous.get("/api/graphs/specs")).status()).toBe(401);
  expect((await anonymous.post("/api/graphs/instances", { data: { spec: "map-reduce" } })).status()).toBe(401);
  const health = await anonymous.get("/api/health");
  expect(health.status()).toBe(200);
  expect(await health.json()).toMatchObject({ ok: true, service: "modex" }); // how modexctl recognises Modex
  await anonymous.dispose();

  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto("/instances");
  await expect(page).toHaveURL(/\/login\?next=%2Finstances/);
  await context.close();
});

test("run --wait exits 4 when the run waits for a human, and prints what it waits for", async ({ baseURL }) => {
  const res = await modexctl(baseURL!, "run", "approval-gate", "--input", "release 13", "--wait");
  expect(res.code, res.stderr).toBe(4);
  expect(res.stdout).toMatch(/status\s+paused/);
  expect(res.stdout).toMatch(/waiting for input at approve: Approve this deploy\? Answer yes or no\./);
  expect(res.stderr).toMatch(/waits for a human \(input at approve\): .*answer with: modexctl answer \d+ <value>/);

  const json = await modexctl(baseURL!, "run", "approval-gate", "--wait", "--json");
  expect(json.code, json.stderr).toBe(4);
  const view = JSON.parse(json.stdout);
  expect(view).toMatchObject({ summary: { status: "paused" }, waitingFor: { node: "approve" } });
  const notCrashed = await modexctl(baseURL!, "recover", view.summary.instanceId, "--json");
  expect(notCrashed.code).toBe(1);
  expect(JSON.parse(notCrashed.stdout).error).toMatchObject({ code: "INVALID_STATE", status: 409 });
  const answered = await modexctl(baseURL!, "answer", view.summary.instanceId, "yes");
  expect(answered.code, answered.stderr).toBe(0);
});

test("--json prints errors as JSON on stdout, with the exit codes of the text errors", async ({ baseURL }) => {
  const cases: [string[], number, Record<string, unknown>][] = [
    [["status", "987654"], 2, { code: "NOT_FOUND", status: 404 }],
    [["specs", "--token", "wrong-token"], 3, { code: "UNAUTHORIZED", status: 401 }],
    [["frobnicate"], 1, { code: "USAGE" }],
    [["ls", "--status", "sleepy"], 1, { code: "BAD_REQUEST", status: 400 }],
  ];
  for (const [args, exitCode, error] of cases) {
    const json = await modexctl(baseURL!, ...args, "--json");
    const text = await modexctl(baseURL!, ...args);
    expect([args, json.code, text.code]).toEqual([args, exitCode, exitCode]);
    const parsed = JSON.parse(json.stdout);
    expect(Object.keys(parsed)).toEqual(["error"]);
    expect(parsed.error).toMatchObject({ ...error, message: expect.any(String) });
    expect(text.stderr).toContain(parsed.error.message);
  }
});

test("a server that is not Modex is reported as such, not as 'not found'", async () => {
  const other = createServer((_req, res) => res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>"));
  await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  try {
    const text = await modexctl(url, "status", "1");
    expect(text.code).toBe(1);
    expect(text.stderr.trim()).toBe(`modexctl: ${url} is not a Modex server (GET /api/health answered 404 text/html)`);
    const json = await modexctl(url, "specs", "--json");
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "NOT_MODEX", message: `${url} is not a Modex server (GET /api/health answered 404 text/html)` } });
  } finally {
    other.close();
  }
});

test("events --follow reconnects after the server is killed and started again, and resumes after the last event", async ({}, testInfo) => {
  testInfo.setTimeout(120_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), "modex-cli-restart-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let server = await startServer({ port, dataDir });
  let follow: ChildProcess | null = null;
  try {
    const run = await modexctl(url, "run", "approval-gate", "--input", "release 14", "--wait", "--json", "--data-dir", dataDir);
    expect(run.code, run.stderr).toBe(4);
    const id = JSON.parse(run.stdout).summary.instanceId as string;

    follow = spawn(process.execPath, [CLI, "events", id, "--follow", "--interval", "100", "--json", "--url", url, "--data-dir", dataDir], {
      env: { ...process.env, MODEX_TOKEN: "" },
    });
    let stdout = "";
    let stderr = "";
    follow.stdout!.on("data", (d) => (stdout += d));
    follow.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => follow!.once("exit", (code) => r(code)));
    await expect.poll(() => stdout, { timeout: 15_000 }).toContain("interrupt_raised");

    server.kill("SIGKILL");
    await new Promise((r) => server.once("exit", r));
    await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/lost the server at .*reconnecting for up to 60 s/);
    server = await startServer({ port, dataDir });

    const answered = await modexctl(url, "answer", id, "yes", "--data-dir", dataDir);
    expect(answered.code, answered.stderr).toBe(0);
    expect(await exited, stderr).toBe(0);
    expect(stderr).toMatch(/reconnected to .* after \d+(\.\d)? s; resuming after event \d+/);

    const printed = stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: number; event: { type: string } });
    const logged = await modexctl(url, "events", id, "--json", "--data-dir", dataDir);
    const all = logged.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: number });
    expect(printed.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(printed.at(-1)!.event.type).toBe("run_finished");
  } finally {
    follow?.kill();
    server.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("run retries a create whose answer was lost with the same Idempotency-Key, and the server runs it once", async ({ baseURL }) => {
  // A proxy in front of the real server: the first create reaches the server and is done, but its
  // answer is dropped (the socket destroyed), as when a connection breaks at the worst moment.
  let creates = 0;
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const hopByHop = new Set(["host", "connection", "content-length", "transfer-encoding", "content-encoding", "keep-alive"]);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !hopByHop.has(k))) as Record<string, string>;
    const answer = await fetch(`${baseURL}${req.url}`, { method: req.method, headers, body: req.method === "GET" ? undefined : Buffer.concat(chunks) });
    const body = Buffer.from(await answer.arrayBuffer());
    if (req.method === "POST" && req.url === "/api/graphs/instances" && creates++ === 0) {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([k]) => !hopByHop.has(k)))).end(body);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  try {
    const input = `once-${Date.now()}`;
    const res = await modexctl(url, "run", "paced-pipeline", "--input", input, "--json");
    expect(res.code, res.stderr).toBe(0);
    expect(creates).toBe(2);
    expect(res.stderr).toMatch(/retrying in 250 ms with the same Idempotency-Key \(attempt 2 of 5\)/);
    expect(res.stderr).toMatch(/had already done POST \/api\/graphs\/instances \(Idempotent-Replayed\)/);
    const { instanceId } = JSON.parse(res.stdout) as { instanceId: string };
    // Every instance on the server whose input is this test's: exactly the one modexctl reported.
    const token = readFileSync(path.join(process.env.MODEX_E2E_DATA_DIR!, "access-token"), "utf8").trim();
    const get = async (p: string) => (await fetch(`${baseURL}${p}`, { headers: { authorization: `Bearer ${token}` } })).json();
    const all = (await get("/api/graphs/instances?limit=500")) as { instanceId: string }[];
    const views = (await Promise.all(all.map((i) => get(`/api/graphs/instances/${i.instanceId}`)))) as { summary: { instanceId: string; input: { content: unknown } | null } }[];
    expect(views.filter((v) => v.summary.input?.content === input).map((v) => v.summary.instanceId)).toEqual([instanceId]);
  } finally {
    proxy.close();
  }
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Another `next start` of the Playwright build, on `port` with `dataDir`; resolves once it answers. */
async function startServer({ port, dataDir }: { port: number; dataDir: string }): Promise<ChildProcess> {
  const { MODEX_TOKEN: _inherited, ...env } = process.env; // this server's token is in its data dir
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port)], {
    env: { ...env, PORT: String(port), MODEX_DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`the server did not start:\n${output}`);
}
