import { createServer, request as httpRequest, Agent, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BodyTooLargeError, readBodyText } from "./body-limit";
import { answerDirectly, directRequestFor, type DirectHandler } from "./direct-answer.mjs";

const LIMIT = 4096;
const routes = new Map<string, DirectHandler>([
  [
    "POST /api/echo",
    async (request) => {
      if (request.headers.get("authorization") !== "Bearer t") return Response.json({ error: "no" }, { status: 401 });
      try {
        const text = await readBodyText(request, LIMIT);
        return Response.json({ got: JSON.parse(text), host: new URL(request.url).host }, { status: 201, headers: { "cache-control": "no-store", "x-mine": "1" } });
      } catch (error) {
        if (error instanceof BodyTooLargeError) return Response.json({ error: "too large" }, { status: 413 });
        throw error;
      }
    },
  ],
  ["GET /api/health", () => Response.json({ ok: true })],
]);

let server: Server;
let base: string;
let viaNext = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    const direct = directRequestFor(req, routes);
    if (direct) return void answerDirectly(direct, res);
    viaNext++;
    res.writeHead(404).end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("answering a registered route without Next.js", () => {
  it("answers with the route's body and status, next.config.mjs's security headers, and a no-transform Cache-Control over the route's own", async () => {
    const res = await fetch(`${base}/api/echo?x=1`, { method: "POST", headers: { authorization: "Bearer t", "content-type": "application/json" }, body: JSON.stringify({ a: 1 }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ got: { a: 1 }, host: new URL(base).host });
    expect(res.headers.get("cache-control")).toBe("private, no-store, no-transform");
    expect(res.headers.get("content-security-policy")).toBe("frame-ancestors 'none'; object-src 'none'; base-uri 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    expect(res.headers.get("x-mine")).toBe("1");
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(0);
  });

  it("leaves to Next.js what it does not register, a write without a JSON body, and another method", async () => {
    const before = viaNext;
    expect((await fetch(`${base}/api/other`)).status).toBe(404);
    expect((await fetch(`${base}/api/echo`, { method: "POST", headers: { authorization: "Bearer t", "content-type": "text/plain" }, body: "{}" })).status).toBe(404);
    expect((await fetch(`${base}/api/echo/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(404);
    expect((await fetch(`${base}/api/health`, { method: "HEAD" })).status).toBe(404);
    expect(viaNext - before).toBe(4);
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
  });

  it("answers 413 to a streamed upload over the limit before it is sent, and the connection serves the next request", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/api/echo`, { method: "POST", agent, headers: { authorization: "Bearer t", "content-type": "application/json", "transfer-encoding": "chunked" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      // 64 KiB in 1 KiB chunks, the last ones only after the answer could have come.
      let sent = 0;
      const more = () => {
        while (sent < 64 && req.write("x".repeat(1024))) sent++;
        if (sent < 64) req.once("drain", more);
        else setTimeout(() => req.end(), 50);
      };
      more();
    });
    expect(status).toBe(413);
    const again = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/api/health`, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end();
    });
    expect(again).toBe(200);
    agent.destroy();
  });

  it("discards a body the handler never reads (401) and keeps the connection usable", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (path: string, headers: Record<string, string>, body?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${base}${path}`, { method: body === undefined ? "GET" : "POST", agent, headers }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end(body);
      });
    expect(await ask("/api/echo", { "content-type": "application/json" }, JSON.stringify({ big: "y".repeat(100_000) }))).toBe(401);
    expect(await ask("/api/echo", { authorization: "Bearer t", "content-type": "application/json" }, "{}")).toBe(201);
    agent.destroy();
  });
});
