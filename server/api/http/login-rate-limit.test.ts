import { describe, expect, it } from "vitest";
import { clientKey, LoginRateLimiter } from "./login-rate-limit";

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

  it("reads the client from the last X-Forwarded-For entry", () => {
    expect(clientKey(new Headers({ "x-forwarded-for": "127.0.0.1" }))).toBe("127.0.0.1");
    expect(clientKey(new Headers({ "x-forwarded-for": "10.0.0.1, 203.0.113.9" }))).toBe("203.0.113.9");
    expect(clientKey(new Headers())).toBe("unknown");
  });
});
