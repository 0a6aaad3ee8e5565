import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { accessToken, editorMarkers, placeCursor, signIn } from "./support/session";

/**
 * The HTTP surface against the real production server: security headers and the CSP the app runs
 * under, redirects after sign-in, body limits, tRPC batches and subscriptions, logout, the login rate
 * limit, the Host check and start-up refusals. Tests that change server-wide state (the rate limit) or
 * need other settings start their own `next start` on the same build, with their own data directory.
 */

const baseURL = `http://127.0.0.1:${process.env.MODEX_E2E_PORT}`;
const bearer = () => ({ authorization: `Bearer ${accessToken()}` });

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A plain HTTP request, so that any Host header can be sent (fetch and Playwright pick their own). */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/**
 * Uploads up to `totalBytes` in 256 KiB chunks (declaring the length, or chunked) and stops writing as
 * soon as the answer arrives: how much was sent by then shows whether the server read the whole body.
 */
function upload(url: string, options: { totalBytes: number; declareLength: boolean; headers?: Record<string, string>; method?: string }) {
  const chunk = Buffer.alloc(256 * 1024, 0x61);
  const started = Date.now();
  return new Promise<{ status: number; body: string; sentBytes: number; ms: number }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const headers = { "content-type": "application/json", ...options.headers, ...(options.declareLength ? { "content-length": String(options.totalBytes) } : {}) };
    const req = http.request(url, { method: options.method ?? "POST", headers }, (res) => {
      answered = true;
      const sentBytes = sent;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body, sentBytes, ms: Date.now() - started });
        req.destroy();
      });
    });
    req.on("error", (e) => {
      if (!answered) reject(e);
    });
    const pump = () => {
      while (!answered && sent < options.totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Another `next start` of the same build, with its own port and data directory. */
class ExtraServer {
  output = "";
  readonly exited: Promise<number | null>;
  private constructor(
    readonly url: string,
    readonly dataDir: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout?.on("data", (d) => (this.output += d));
    child.stderr?.on("data", (d) => (this.output += d));
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static async start(env: Record<string, string> = {}, dataDir = mkdtempSync(path.join(tmpdir(), "modex-http-"))): Promise<ExtraServer> {
    const port = await freePort();
    const { MODEX_TOKEN: _inherited, ...inherited } = process.env; // the token comes from this server's data dir unless `env` sets one
    const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port)], {
      env: { ...inherited, PORT: String(port), MODEX_DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new ExtraServer(`http://127.0.0.1:${port}`, dataDir, child);
  }

  /** Resolves once /api/health answers; throws with the server's output if it exits first. */
  async ready(): Promise<this> {
    const deadline = Date.now() + 60_000;
    let exited = false;
    void this.exited.then(() => (exited = true));
    while (Date.now() < deadline && !exited) {
      const ok = await fetch(`${this.url}/api/health`).then((r) => r.ok, () => false);
      if (ok) return this;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the server did not start:\n${this.output}`);
  }

  async stop(options: { keepData?: boolean } = {}): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGTERM");
      await this.exited;
    }
    if (!options.keepData) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

const tokenOf = (server: ExtraServer) => readFileSync(path.join(server.dataDir, "access-token"), "utf8").trim();

async function sessionCookieFor(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
  expect(res.status).toBe(200);
  const cookie = res.headers.get("set-cookie") ?? "";
  const value = /modex_session=([^;]+)/.exec(cookie)?.[1];
  if (!value) throw new Error(`no session cookie in ${cookie}`);
  return `modex_session=${value}`;
}

/** Records every CSP violation a page reports: DOM events and the console lines Chromium writes. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.exposeFunction("__reportCsp", (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __reportCsp(v: string): void }).__reportCsp(`${e.violatedDirective} blocked ${e.blockedURI}`);
    });
  });
  return violations;
}

test.describe("headers and the Content-Security-Policy", () => {
  test("pages, the API and static files carry the security headers; pages and the API are private, no-store", async ({ page }) => {
    await signIn(page);
    const pageRes = await page.request.get("/graphs");
    const loginRes = await page.request.get("/login");
    const apiRes = await page.request.get("/api/trpc/specs.list");
    const restRes = await page.request.get("/api/graphs/specs");
    const health = await page.request.get("/api/health");
    const script = /src="(\/_next\/static\/[^"]+\.js)"/.exec(await loginRes.text())?.[1];
    expect(script).toBeTruthy();
    const staticRes = await page.request.get(script as string);

    for (const res of [pageRes, loginRes, apiRes, restRes, health, staticRes]) {
      const h = res.headers();
      expect(res.status(), res.url()).toBe(200);
      expect(h["content-security-policy"], res.url()).toContain("frame-ancestors 'none'");
      expect(h["x-content-type-options"], res.url()).toBe("nosniff");
      expect(h["referrer-policy"], res.url()).toBe("same-origin");
    }
    for (const res of [pageRes, loginRes, apiRes, restRes, health]) {
      const cacheControl = res.headers()["cache-control"] ?? "";
      expect(cacheControl, res.url()).toContain("private");
      expect(cacheControl, res.url()).toContain("no-store");
      expect(cacheControl, res.url()).not.toContain("s-maxage");
    }
    // The page's policy allows only its own nonce'd scripts, and the page's scripts carry that nonce.
    const policy = pageRes.headers()["content-security-policy"];
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(policy).toContain("'strict-dynamic'");
    expect(policy).not.toContain("'unsafe-eval'");
    expect(nonce).toBeTruthy();
    const html = await pageRes.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect((await page.request.get("/graphs")).headers()["content-security-policy"]).not.toContain(nonce as string); // fresh per response
  });

  test("the login page, the graph editor (Monaco, its workers, the preview and ELK) and the other views work under the CSP", async ({ page }) => {
    test.setTimeout(120_000);
    const violations = await watchCsp(page);
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));

    await page.goto("/login");
    await expect(page.getByRole("heading", { name: "Sign in to Modex" })).toBeVisible();
    await page.getByLabel("Access token").fill(accessToken());
    await page.screenshot({ path: "e2e/screenshots/login-under-csp.png" });
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/graphs$/);

    await page.goto("/graphs/map-reduce");
    const preview = page.getByTestId("spec-preview");
    await expect(page.locator(".monaco-editor")).toBeVisible({ timeout: 60_000 });
    await expect(preview).toHaveAttribute("data-node-count", /^[1-9]\d*$/, { timeout: 60_000 });
    await expect(page.locator('[data-testid="canvas-node"]').first()).toBeVisible(); // laid out by ELK's worker
    await expect(page.getByTestId("validation")).toHaveAttribute("data-state", "valid", { timeout: 15_000 });

    // Break the YAML: the YAML worker and the server's validation mark it, the preview says why.
    await placeCursor(page, 1, "start");
    await page.keyboard.type("["); // an unclosed flow sequence
    await expect(page.getByTestId("preview-problem")).toBeVisible({ timeout: 15_000 });
    await expect.poll(async () => (await editorMarkers(page)).length, { timeout: 15_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: "e2e/screenshots/editor-under-csp.png" });
    await page.keyboard.press("Control+z");
    await expect(page.getByTestId("preview-problem")).toHaveCount(0, { timeout: 15_000 });

    // The other views, an instance's live view (SSE, React Flow) among them.
    const created = await page.request.post("/api/graphs/instances", { headers: bearer(), data: { spec: "map-reduce" } });
    expect(created.status()).toBe(201);
    const { instanceId } = (await created.json()) as { instanceId: string };
    await page.goto(`/instances/${instanceId}`);
    await expect(page.locator('[data-testid="canvas-node"]').first()).toBeVisible({ timeout: 30_000 });
    for (const view of ["/instances", "/chat", "/agents"]) {
      await page.goto(view);
      await expect(page.locator("main").first()).toBeVisible();
    }
    await page.waitForTimeout(500); // let late workers and styles report

    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  });
});

test.describe("sign-in redirects", () => {
  for (const next of ["/%5Cevil.example", "/%09/evil.example", "//evil.example", "/%0a/x", "https://evil.example/"]) {
    test(`the login link with next=${next} stays on this origin`, async ({ request }) => {
      const res = await request.get(`/api/auth/login?token=${accessToken()}&next=${next}`, { maxRedirects: 0 });
      expect(res.status()).toBe(303);
      expect(res.headers().location).toBe("/");
    });
  }

  test("the login link keeps a same-origin next, query included", async ({ request }) => {
    const res = await request.get(`/api/auth/login?token=${accessToken()}&next=${encodeURIComponent("/instances?status=paused")}`, { maxRedirects: 0 });
    expect(res.headers().location).toBe("/instances?status=paused");
  });

  test("the login form never leaves the origin either", async ({ page }) => {
    for (const next of ["/%5Cevil.example", "/%09/evil.example"]) {
      await page.context().clearCookies();
      await page.goto(`/login?next=${next}`);
      await page.getByLabel("Access token").fill(accessToken());
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).toHaveURL(`${baseURL}/graphs`);
    }
  });
});

test.describe("request limits", () => {
  test("a 50 MB REST body is refused with 413 after at most the limit is read, declared or chunked", async () => {
    for (const declareLength of [true, false]) {
      const res = await upload(`${baseURL}/api/graphs/instances`, { totalBytes: 50 * 1024 * 1024, declareLength, headers: bearer() });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("1 MiB") });
      // The answer came long before the 50 MB were sent. (How much the client had written by the time it
      // saw the answer varies with loopback buffers and scheduling: 1–18 MB seen; Node discards the rest.)
      expect(res.sentBytes).toBeLessThan(40 * 1024 * 1024);
      expect(res.ms).toBeLessThan(5_000);
    }
  });

  test("a 50 MB tRPC body is refused with 413 in tRPC's error shape", async () => {
    const res = await upload(`${baseURL}/api/trpc/instances.create`, { totalBytes: 50 * 1024 * 1024, declareLength: false, headers: bearer() });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error).toMatchObject({ message: expect.stringContaining("larger than 1 MiB"), data: { code: "PAYLOAD_TOO_LARGE" } });
    expect(res.sentBytes).toBeLessThan(12 * 1024 * 1024);
  });

  test("JSON nested 10,000 levels deep is a 400, not a 500 (REST and tRPC)", async ({ request }) => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const body = `{"spec":"map-reduce","input":${deep}}`;
    const rest = await request.post("/api/graphs/instances", { headers: { ...bearer(), "content-type": "application/json" }, data: body });
    expect(rest.status()).toBe(400);
    expect((await rest.json()).error.message).toContain("deeper than 64 levels");
    const trpc = await request.post("/api/trpc/instances.create", { headers: { ...bearer(), "content-type": "application/json" }, data: body });
    expect(trpc.status()).toBe(400);
    expect((await trpc.json()).error.message).toContain("deeper than 64 levels");
    const query = await request.get(`/api/trpc/instances.get?input=${encodeURIComponent(`{"id":${"[".repeat(100)}${"]".repeat(100)}}`)}`, { headers: bearer() });
    expect(query.status()).toBe(400);
  });

  test("text holding U+0000 is a 400 that says so, wherever it is sent (PostgreSQL cannot store it)", async ({ request }) => {
    const nul = "holds the character U+0000 (NUL)";
    const body = JSON.stringify({ spec: "approval-gate", input: "ship a\u0000b" });
    const rest = await request.post("/api/graphs/instances", { headers: { ...bearer(), "content-type": "application/json" }, data: body });
    expect(rest.status()).toBe(400);
    expect((await rest.json()).error.message).toContain(nul);
    const search = await request.get("/api/graphs/instances?q=%00abc", { headers: bearer() });
    expect(search.status()).toBe(400);
    expect((await search.json()).error).toMatchObject({ message: expect.stringContaining(nul), issues: [{ path: ["q"] }] });
    const trpc = await request.get(`/api/trpc/chat.list?input=${encodeURIComponent(JSON.stringify({ q: "a\u0000" }))}`, { headers: bearer() });
    expect(trpc.status()).toBe(400);
    expect((await trpc.json()).error.message).toContain(nul);
    // Without the character the same requests are served.
    expect((await request.get("/api/graphs/instances?q=abc", { headers: bearer() })).status()).toBe(200);
    expect((await request.get(`/api/trpc/chat.list?input=${encodeURIComponent(JSON.stringify({ q: "a" }))}`, { headers: bearer() })).status()).toBe(200);
  });

  test("a spec's YAML over 5 MiB is refused with 413; one under it is read", async ({ request }) => {
    const line = `# ${"x".repeat(100)}\n`;
    const big = `name: big\n${line.repeat(Math.ceil((5 * 1024 * 1024 + 1) / line.length))}`;
    const refused = await request.post("/api/trpc/specs.validate", { headers: bearer(), data: { yaml: big } });
    expect(refused.status()).toBe(413);
    expect((await refused.json()).error.message).toMatch(/spec's YAML is 5\.0 MiB; at most 5 MiB .*MODEX_MAX_SPEC_BYTES/);
    const accepted = await request.post("/api/trpc/specs.validate", { headers: bearer(), data: { yaml: `name: fine\n${line.repeat(30_000)}` } }); // ~3 MiB
    expect(accepted.status()).toBe(200);
  });

  test("an agent definition PUT as YAML over 5 MiB is refused with 413", async () => {
    const res = await upload(`${baseURL}/api/agents/huge`, { method: "PUT", totalBytes: 50 * 1024 * 1024, declareLength: false, headers: { ...bearer(), "content-type": "text/yaml" } });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.message).toContain("larger than 5 MiB");
    expect(res.sentBytes).toBeLessThan(16 * 1024 * 1024);
  });

  test("a tRPC batch of more than 50 procedures is refused with 400 before any runs", async ({ request }) => {
    const started = Date.now();
    const res = await request.get(`/api/trpc/${Array(500).fill("specs.list").join(",")}?batch=1`, { headers: bearer() });
    expect(res.status()).toBe(400);
    expect((await res.json()).error.message).toContain("a batch of 500 procedures; at most 50");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await request.get(`/api/trpc/${Array(50).fill("health").join(",")}?batch=1`)).status()).toBe(200);
  });
});

test.describe("sessions", () => {
  test("a tRPC subscription without credentials answers 401 before streaming", async () => {
    for (const [path, input] of [
      ["instances.onEvent", { instanceId: "anything" }],
      ["chat.onEvent", { sessionId: "anything" }],
    ] as const) {
      const res = await raw(`${baseURL}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { accept: "text/event-stream" } });
      expect(res.status, path).toBe(401);
      expect(res.headers["content-type"], path).toContain("application/json"); // not an event stream
      expect(JSON.parse(res.body).error.data, path).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
    }
  });

  test("logout ends the session on the server: the same cookie is refused afterwards", async () => {
    const cookie = await sessionCookieFor(baseURL, accessToken());
    const asCookie = { cookie };
    expect((await raw(`${baseURL}/api/trpc/specs.list`, { headers: asCookie })).status).toBe(200);
    expect((await raw(`${baseURL}/graphs`, { headers: asCookie })).status).toBe(200);

    const out = await raw(`${baseURL}/api/auth/logout`, { method: "POST", headers: asCookie });
    expect(out.status).toBe(200);
    // A copy of the cookie (the browser dropped its own) is refused by the API and by the pages' proxy.
    expect((await raw(`${baseURL}/api/trpc/specs.list`, { headers: asCookie })).status).toBe(401);
    expect((await raw(`${baseURL}/api/graphs/specs`, { headers: asCookie })).status).toBe(401);
    const pageVisit = await raw(`${baseURL}/graphs`, { headers: asCookie });
    expect(pageVisit.status).toBe(307);
    expect(pageVisit.headers.location).toContain("/login");
    expect(JSON.parse((await raw(`${baseURL}/api/auth/session`, { headers: asCookie })).body).authenticated).toBe(false);
  });

  test("the token file is readable by its owner only (0600)", () => {
    const file = path.join(process.env.MODEX_E2E_DATA_DIR as string, "access-token");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

test.describe("the Host check", () => {
  test("a request for another host name is refused (DNS rebinding); loopback names are served", async () => {
    for (const url of ["/api/auth/session", "/api/graphs/specs", "/api/trpc/health", "/login", "/graphs"]) {
      const res = await raw(`${baseURL}${url}`, { headers: { host: "evil.example", ...bearer() } });
      expect(res.status, url).toBe(421);
      expect(res.body, url).toContain("MODEX_ALLOWED_HOSTS");
    }
    const port = process.env.MODEX_E2E_PORT;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect((await raw(`${baseURL}/login`, { headers: { host } })).status, host).toBe(200);
    }
  });

  test("X-Forwarded-Host does not make a cross-origin write same-origin without a trusted proxy", async () => {
    const res = await raw(`${baseURL}/api/graphs/instances`, {
      method: "POST",
      headers: { ...bearer(), "content-type": "application/json", origin: "https://evil.example", "x-forwarded-host": "evil.example" },
      body: JSON.stringify({ spec: "map-reduce" }),
    });
    expect(res.status).toBe(403);
  });
});

test.describe("servers of their own", { tag: "@own-server" }, () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });

  test("failed sign-ins are rate limited per client: 429 with Retry-After, the right token included", async () => {
    // `next start` without server.mjs: clients are told apart only by a trusted proxy's X-Forwarded-For
    // (without one every client counts as one: login-lockout-dev.int.test.ts).
    const server = await (await ExtraServer.start({ MODEX_TRUST_PROXY: "on" })).ready();
    try {
      const token = tokenOf(server);
      const login = (t: string, client: string) =>
        raw(`${server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": client }, body: JSON.stringify({ token: t }) });
      for (let i = 0; i < 10; i++) expect((await login("wrong", "198.51.100.7")).status).toBe(401);
      const limited = await login(token, "198.51.100.7");
      expect(limited.status).toBe(429);
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      expect(JSON.parse(limited.body).error.message).toContain("too many failed sign-ins");
      const link = await raw(`${server.url}/api/auth/login?token=${token}`, { headers: { "x-forwarded-for": "198.51.100.7" } });
      expect(link.status).toBe(429);
      expect((await login(token, "198.51.100.8")).status).toBe(200); // another client is not blocked
    } finally {
      await server.stop();
    }
  });

  test("a logged-out session stays refused after a restart", async () => {
    const first = await (await ExtraServer.start()).ready();
    const token = tokenOf(first);
    const cookie = await sessionCookieFor(first.url, token);
    expect((await raw(`${first.url}/api/auth/logout`, { method: "POST", headers: { cookie } })).status).toBe(200);
    await first.stop({ keepData: true });
    const second = await (await ExtraServer.start({}, first.dataDir)).ready();
    try {
      expect((await raw(`${second.url}/api/trpc/specs.list`, { headers: { cookie } })).status).toBe(401);
      const fresh = await sessionCookieFor(second.url, token);
      expect((await raw(`${second.url}/api/trpc/specs.list`, { headers: { cookie: fresh } })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  test("MODEX_ALLOWED_HOSTS adds names; MODEX_TRUST_PROXY=on trusts X-Forwarded-Host", async () => {
    const server = await (await ExtraServer.start({ MODEX_ALLOWED_HOSTS: "modex.example.com", MODEX_TRUST_PROXY: "on" })).ready();
    try {
      const token = tokenOf(server);
      expect((await raw(`${server.url}/login`, { headers: { host: "modex.example.com" } })).status).toBe(200);
      expect((await raw(`${server.url}/login`, { headers: { host: "other.example.com" } })).status).toBe(421);
      // Behind the proxy: Host is the upstream's address, X-Forwarded-Host and Origin the public name.
      const write = (forwardedHost: string) =>
        raw(`${server.url}/api/graphs/instances`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", origin: "https://modex.example.com", "x-forwarded-host": forwardedHost },
          body: JSON.stringify({ spec: "map-reduce" }),
        });
      expect((await write("modex.example.com")).status).toBe(201);
      expect((await write("evil.example")).status).toBe(421); // the forwarded name is checked too
    } finally {
      await server.stop();
    }
  });

  test("MODEX_MAX_BATCH below the web app's 50: its pages batch no more than the server takes, so none is refused", async ({ page }) => {
    const server = await (await ExtraServer.start({ MODEX_MAX_BATCH: "2" })).ready();
    try {
      const refused: string[] = [];
      page.on("response", (r) => {
        if (r.url().includes("/api/trpc/") && r.status() === 400) refused.push(r.url());
      });
      await page.goto(`${server.url}/api/auth/login?token=${tokenOf(server)}&next=/agents`);
      await expect(page.getByText("Tool catalog", { exact: false }).first()).toBeVisible();
      for (const path of ["/", "/instances", "/chat", "/graphs/counter-loop"]) {
        await page.goto(`${server.url}${path}`);
        await page.waitForLoadState("networkidle");
      }
      expect(refused).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  test("a MODEX_TOKEN shorter than 32 characters stops the start-up with a message", async () => {
    const server = await ExtraServer.start({ MODEX_TOKEN: "too-short-0123456789" });
    try {
      const code = await Promise.race([server.exited, new Promise<"running">((r) => setTimeout(() => r("running"), 30_000))]);
      expect(server.output).toContain("MODEX_TOKEN must be at least 32 characters");
      expect(code).toBe(1);
    } finally {
      await server.stop();
    }
  });
});
