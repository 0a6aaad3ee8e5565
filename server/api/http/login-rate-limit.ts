import { CLIENT_ADDRESS_HEADER } from "./client-address.mjs";

/**
 * Failed sign-ins are counted per client and in total, in fixed windows. Past either limit every
 * attempt (right token or not) is answered 429 with Retry-After until the window ends, so a token
 * cannot be guessed faster than the limit allows. Successful sign-ins are not counted: a browser, the
 * CLI and the tests sign in often.
 *
 * The total limit is there because behind a proxy the client's address comes from X-Forwarded-For, which
 * a client can write itself unless the proxy sets it: however many addresses a client claims, the server
 * as a whole accepts only `total` failures per window. In memory: a restart forgets the counts.
 */
export interface LoginRateLimits {
  /** Failed attempts one client may make per window. */
  perClient: number;
  /** Failed attempts all clients together may make per window. */
  total: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_RATE_LIMITS: LoginRateLimits = { perClient: 10, total: 100, windowMs: 5 * 60_000 };

const ALL_CLIENTS = "*";
/** Bounds the table when a client invents addresses; the total limit still holds when it is cleared. */
const MAX_TRACKED_CLIENTS = 10_000;

interface Window {
  failures: number;
  endsAt: number;
}

export class LoginRateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limits: LoginRateLimits = DEFAULT_LOGIN_RATE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait when this client may not try now; null when it may. */
  retryAfterSeconds(client: string): number | null {
    const now = this.now();
    const waits = [this.blockedUntil(client, this.limits.perClient, now), this.blockedUntil(ALL_CLIENTS, this.limits.total, now)];
    const until = Math.max(...waits.map((w) => w ?? 0));
    return until > now ? Math.ceil((until - now) / 1000) : null;
  }

  recordFailure(client: string): void {
    const now = this.now();
    if (this.windows.size > MAX_TRACKED_CLIENTS) this.forgetEnded(now);
    for (const key of [client, ALL_CLIENTS]) {
      const window = this.current(key, now) ?? { failures: 0, endsAt: now + this.limits.windowMs };
      window.failures++;
      this.windows.set(key, window);
    }
  }

  private blockedUntil(key: string, limit: number, now: number): number | null {
    const window = this.current(key, now);
    return window && window.failures >= limit ? window.endsAt : null;
  }

  private current(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    return window && window.endsAt > now ? window : undefined;
  }

  private forgetEnded(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    if (this.windows.size > MAX_TRACKED_CLIENTS) {
      const total = this.windows.get(ALL_CLIENTS);
      this.windows.clear();
      if (total) this.windows.set(ALL_CLIENTS, total);
    }
  }
}

/** The one client every request counts as when its address cannot be known (`npm run dev`, no proxy). */
export const UNKNOWN_CLIENT = "unknown";

/**
 * Who is signing in, for the limiter. Behind a trusted proxy (MODEX_TRUST_PROXY=on): the last
 * X-Forwarded-For entry, the address the proxy saw. Otherwise, under server.mjs (`stamped`): the
 * connection's address, which it writes on every request (CLIENT_ADDRESS_HEADER); any X-Forwarded-For a
 * client writes is ignored, so a locked-out client cannot claim to be another. Under `next dev` no
 * server.mjs runs and Next.js keeps an X-Forwarded-For the client sent, so no header names the
 * connection: every client is the same one, and ten wrong tokens lock out all of them.
 */
export function clientKey(headers: Headers, { trustProxy, stamped }: { trustProxy: boolean; stamped: boolean }): string {
  if (trustProxy) return headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() || UNKNOWN_CLIENT;
  if (stamped) return headers.get(CLIENT_ADDRESS_HEADER) ?? UNKNOWN_CLIENT;
  return UNKNOWN_CLIENT;
}
