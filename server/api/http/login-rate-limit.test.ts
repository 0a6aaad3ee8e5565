import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER, stampClientAddress } from "./client-address.mjs";
import { clientKey, LoginRateLimiter, UNKNOWN_CLIENT } from "./login-rate-limit";

function limiter(perClient = 3, total = 5) {
  let now = 1_000_000;
  const l = new LoginRateLimiter({ perClient, total, windowMs: 60_000 }, () => now);
  return { l, advance: (ms: number) => (now += ms) };
}

describe("LoginRateLimiter", () => {
  it("lets a client fail up to its limit, then asks it to wait until the window ends", () => {
    const { l, advance } = limiter();
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfterSeconds("a")).toBeNull();
      l.recordFailure("a");
    }
    expect(l.retryAfterSeconds("a")).toBe(60);
    expect(l.retryAfterSeconds("b")).toBeNull(); // another client is not blocked
    advance(45_500);
    expect(l.retryAfterSeconds("a")).toBe(15);
    advance(14_500);
    expect(l.retryAfterSeconds("a")).toBeNull(); // a new window
  });

  it("caps the failures of all clients together, whatever addresses they claim", () => {
    const { l } = limiter(3, 5);
    for (let i = 0; i < 5; i++) l.recordFailure(`forged-${i}`);
    expect(l.retryAfterSeconds("someone-else")).toBe(60);
  });

  it("reads the client from the address server.mjs stamps, and from X-Forwarded-For only behind a trusted proxy", () => {
    const direct = { trustProxy: false, stamped: true };
    // A client's own X-Forwarded-For names no one: the connection's address does.
    expect(clientKey(new Headers({ [CLIENT_ADDRESS_HEADER]: "198.51.100.7", "x-forwarded-for": "9.9.9.9" }), direct)).toBe("198.51.100.7");
    expect(clientKey(new Headers(), direct)).toBe(UNKNOWN_CLIENT);
    const proxied = { trustProxy: true, stamped: true };
    expect(clientKey(new Headers({ [CLIENT_ADDRESS_HEADER]: "10.0.0.2", "x-forwarded-for": "10.0.0.1, 203.0.113.9" }), proxied)).toBe("203.0.113.9");
    expect(clientKey(new Headers(), proxied)).toBe(UNKNOWN_CLIENT);
  });

  it("without server.mjs (`next dev`) believes no header a client can write: every client is one", () => {
    const dev = { trustProxy: false, stamped: false };
    expect(clientKey(new Headers({ [CLIENT_ADDRESS_HEADER]: "198.51.100.7", "x-forwarded-for": "9.9.9.9" }), dev)).toBe(UNKNOWN_CLIENT);
    expect(clientKey(new Headers({ "x-forwarded-for": "127.0.0.1" }), dev)).toBe(UNKNOWN_CLIENT);
  });
});

describe("stampClientAddress", () => {
  it("writes the connection's address over any such header the client sent", async () => {
    const server = createServer((req, res) => {
      stampClientAddress(req);
      res.end(JSON.stringify(req.headers[CLIENT_ADDRESS_HEADER]));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/`, { headers: { [CLIENT_ADDRESS_HEADER]: "203.0.113.66", "x-forwarded-for": "203.0.113.66" } });
      expect(await answer.json()).toBe("127.0.0.1");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
