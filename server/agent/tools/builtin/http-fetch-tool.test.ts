import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpFetchTool, refusal } from "./http-fetch-tool";

// A real HTTP server on loopback: 127.0.0.1 is allowed, "localhost" (the same machine by another name) is not.
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/hello") return void res.writeHead(200, { "content-type": "text/plain" }).end("hello there");
    if (req.url === "/long") return void res.writeHead(200).end("y".repeat(500));
    if (req.url === "/away") return void res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/hello` }).end();
    if (req.url === "/inside") return void res.writeHead(301, { location: "/hello" }).end();
    res.writeHead(404).end("nope");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ctx = { signal: new AbortController().signal, callId: "c", sessionId: "s", turnId: "t" };
const run = (url: string, allowedHosts = ["127.0.0.1"], maxChars?: number) => httpFetchTool({ allowedHosts, maxChars }).execute({ url }, ctx);

describe("http_fetch", () => {
  it("GETs a page on an allowed host: status, content type and body", async () => {
    expect(await run(`${base}/hello`)).toEqual({ content: `GET ${base}/hello\nstatus: 200\ncontent-type: text/plain\n\nhello there`, isError: false });
    expect(await run(`${base}/missing`)).toMatchObject({ isError: true, content: expect.stringContaining("status: 404") });
  });

  it("follows a redirect on an allowed host, refuses one that leaves the allowed hosts", async () => {
    expect(await run(`${base}/inside`)).toMatchObject({ content: expect.stringContaining("hello there") });
    expect(await run(`${base}/away`)).toEqual({ content: "host localhost is not allowed; allowed: 127.0.0.1", isError: true });
  });

  it("cuts a long body at maxChars and says so", async () => {
    const out = (await run(`${base}/long`, ["127.0.0.1"], 100)) as { content: string };
    expect(out.content).toContain(`${"y".repeat(100)}\n[... 400 more characters not shown]`);
  });

  it("refuses other schemes, credentials, other hosts, and everything when no host is configured", () => {
    expect(refusal("file:///etc/passwd", ["*"])).toBe("only http and https URLs may be fetched, not file:");
    expect(refusal("http://u:p@example.com/", ["example.com"])).toBe("URLs with credentials may not be fetched");
    expect(refusal("https://api.example.com/x", ["*.example.com"])).toBeNull();
    expect(refusal("https://example.com/x", ["*.example.com"])).toMatch(/not allowed/);
    expect(refusal("https://evil-example.com/x", ["*.example.com"])).toMatch(/not allowed/);
    expect(refusal("https://example.com/", [])).toMatch(/MODEX_FETCH_ALLOWED_HOSTS is empty/);
    expect(refusal("not a url", ["example.com"])).toBe("not an absolute URL: not a url");
  });
});
