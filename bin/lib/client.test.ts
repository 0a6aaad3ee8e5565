import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { main } from "../modexctl.mjs";

/** What the stand-in does with one request: drop the connection, or answer. */
type Step = "drop" | { status: number; body: unknown; headers?: Record<string, string> };

interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  body: string;
}

/**
 * A stand-in Modex server that plays `steps` in order (the last one repeats) for requests outside
 * /api/health, and records what it was sent. "drop" reads the whole request, then destroys the
 * socket: the client cannot tell whether the work was done, the case the Idempotency-Key is for.
 */
async function standIn(steps: Step[], port = 0): Promise<{ server: Server; url: string; seen: Seen[] } & AsyncDisposable> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = "";
    for await (const c of req) body += c;
    if (req.url === "/api/health") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, service: "modex", engine: "0.1.0", time: new Date().toISOString() }));
      return;
    }
    seen.push({ method: req.method!, path: req.url!, key: req.headers["idempotency-key"] as string | undefined, body });
    const step = steps[Math.min(seen.length - 1, steps.length - 1)];
    if (step === "drop") {
      req.socket.destroy();
      return;
    }
    res.writeHead(step.status, { "content-type": "application/json", ...step.headers }).end(JSON.stringify(step.body));
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, seen, [Symbol.asyncDispose]: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

async function cli(url: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...argv, "--url", url], { out: (x) => out.push(x), err: (x) => err.push(x) }, { MODEX_TOKEN: "t" });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const CREATED = { status: 201, body: { instanceId: "7", version: 1, status: "running" } };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("modexctl's idempotent writes", () => {
  it("retries a create whose connection dropped, with the same Idempotency-Key", async () => {
    await using s = await standIn(["drop", CREATED]);
    const res = await cli(s.url, "run", "map-reduce", "--input", "[1]");
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe("started 7 (map-reduce, version 1, running)");
    expect(s.seen).toHaveLength(2);
    expect(s.seen.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/graphs/instances", "POST /api/graphs/instances"]);
    expect(s.seen[0].key).toMatch(UUID);
    expect(s.seen[1].key).toBe(s.seen[0].key);
    expect(s.seen[1].body).toBe(s.seen[0].body);
    expect(res.err).toMatch(
      /^modexctl: POST \/api\/graphs\/instances: (ECONNRESET|UND_ERR_SOCKET)[^;]*; retrying in 250 ms with the same Idempotency-Key \(attempt 2 of 5\)$/,
    );
  });

  it("retries on 502 and 503, and says when the server replayed its first answer", async () => {
    await using s = await standIn([
      { status: 502, body: "bad gateway" },
      { status: 503, body: { error: { code: "UNAVAILABLE", message: "database busy" } } },
      { ...CREATED, headers: { "idempotent-replayed": "true" } },
    ]);
    const res = await cli(s.url, "run", "map-reduce", "--json");
    expect(res.code, res.err).toBe(0);
    expect(JSON.parse(res.out)).toEqual(CREATED.body);
    expect(new Set(s.seen.map((r) => r.key)).size).toBe(1);
    expect(s.seen).toHaveLength(3);
    expect(res.err.split("\n")).toEqual([
      expect.stringMatching(/HTTP 502; retrying in 250 ms .*attempt 2 of 5/),
      expect.stringMatching(/HTTP 503; retrying in 500 ms .*attempt 3 of 5/),
      "modexctl: the server had already done POST /api/graphs/instances (Idempotent-Replayed): this is its first answer",
    ]);
  });

  it("after a dropped connection, waits out a 409 IDEMPOTENCY_IN_PROGRESS (the first request still at work) and prints its answer", async () => {
    const busy = { status: 409, body: { error: { code: "IDEMPOTENCY_IN_PROGRESS", message: "a request with Idempotency-Key k is still in progress: retry in a moment with the same key" } } };
    await using s = await standIn(["drop", busy, { ...CREATED, headers: { "idempotent-replayed": "true" } }]);
    const res = await cli(s.url, "run", "map-reduce");
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe("started 7 (map-reduce, version 1, running)");
    expect(s.seen).toHaveLength(3);
    expect(new Set(s.seen.map((r) => r.key)).size).toBe(1);
    expect(res.err).toMatch(/still at work; retrying in 500 ms with the same Idempotency-Key/);
  });

  it("a 409 that refuses the command (INVALID_STATE) is not retried", async () => {
    await using s = await standIn([{ status: 409, body: { error: { code: "INVALID_STATE", message: "instance 7 is completed; only a paused instance is answered" } } }]);
    const res = await cli(s.url, "answer", "7", "yes");
    expect([res.code, s.seen.length]).toEqual([1, 1]);
    expect(res.err).toMatch(/refused: instance 7 is completed/);
  });

  it("retries a create the server refused to connect to until it listens", async () => {
    const reserved = await standIn([CREATED]);
    const port = Number(new URL(reserved.url).port);
    await reserved[Symbol.asyncDispose]();
    const pending = cli(reserved.url, "run", "map-reduce");
    await new Promise((r) => setTimeout(r, 400));
    await using s = await standIn([CREATED], port);
    const res = await pending;
    expect(res.code, res.err).toBe(0);
    expect(res.err).toMatch(/ECONNREFUSED; retrying in 250 ms/);
    expect(s.seen).toHaveLength(1);
    expect(s.seen[0].key).toMatch(UUID);
  });

  it("gives up after 5 attempts with the last error", async () => {
    await using s = await standIn([{ status: 503, body: { error: { code: "UNAVAILABLE", message: "database is full" } } }]);
    const res = await cli(s.url, "answer", "7", "yes", "--json");
    expect(res.code).toBe(1);
    expect(JSON.parse(res.out)).toEqual({ error: { code: "UNAVAILABLE", status: 503, message: "server error (HTTP 503): database is full" } });
    expect(s.seen).toHaveLength(5);
    expect(new Set(s.seen.map((r) => r.key)).size).toBe(1);
  });

  it("sends one new key per invocation, on create, reinvoke, deliver and answer", async () => {
    await using s = await standIn([{ status: 200, body: { instanceId: "7", version: 2, status: "running", deliverId: "1", pickup: "new_run" } }]);
    for (const argv of [["run", "x"], ["run", "x"], ["reinvoke", "7", "--input", "2"], ["deliver", "7", "n", "c"], ["answer", "7", "yes"]]) {
      expect((await cli(s.url, ...argv)).code).toBe(0);
    }
    expect(s.seen.map((r) => r.path)).toEqual([
      "/api/graphs/instances",
      "/api/graphs/instances",
      "/api/graphs/instances/7/reinvoke",
      "/api/graphs/instances/7/deliver",
      "/api/graphs/instances/7/answer",
    ]);
    for (const r of s.seen) expect(r.key).toMatch(UUID);
    expect(new Set(s.seen.map((r) => r.key)).size).toBe(5);
  });

  it("approve and deny carry the key and are retried with it after a dropped connection", async () => {
    await using s = await standIn(["drop", { status: 200, body: { command: "APPROVE", instanceId: "7", version: 1, status: "running" }, headers: { "idempotent-replayed": "true" } }]);
    const approved = await cli(s.url, "approve", "7");
    expect(approved.code, approved.err).toBe(0);
    expect(approved.err).toMatch(/retrying in 250 ms with the same Idempotency-Key[\s\S]*had already done POST \/api\/graphs\/instances\/7\/approve \(Idempotent-Replayed\)/);
    expect(s.seen.map((r) => r.path)).toEqual(["/api/graphs/instances/7/approve", "/api/graphs/instances/7/approve"]);
    expect(s.seen[0].key).toMatch(UUID);
    expect(s.seen[1].key).toBe(s.seen[0].key);
    expect((await cli(s.url, "deny", "7", "--reason", "no")).code).toBe(0);
    expect(s.seen[2]).toMatchObject({ path: "/api/graphs/instances/7/deny", body: JSON.stringify({ reason: "no" }), key: expect.stringMatching(UUID) });
    expect(s.seen[2].key).not.toBe(s.seen[0].key);
  });

  it("does not repeat a write that has no key (pause, stop, resume, recover) after a dropped connection", async () => {
    await using s = await standIn(["drop"]);
    for (const command of ["pause", "recover"]) {
      const res = await cli(s.url, command, "7", "--json");
      expect(res.code).toBe(1);
      expect(JSON.parse(res.out).error.code).toBe("UNREACHABLE");
    }
    expect(s.seen.map((r) => `${r.path} ${r.key}`)).toEqual(["/api/graphs/instances/7/pause undefined", "/api/graphs/instances/7/recover undefined"]);
  });
});
