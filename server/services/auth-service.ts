import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export const SESSION_COOKIE = "modex_session";
const SESSION_DAYS = 30;

export type AuthResult = { via: "bearer" | "cookie" } | null;

/**
 * Auth on by default, as Jupyter does it: one access token per data directory, generated on first
 * start (or set with MODEX_TOKEN). The browser trades it for a session cookie signed with a key
 * derived from the token (HMAC), so changing the token logs every browser out; REST and the CLI send
 * it as `Authorization: Bearer <token>`.
 */
export class AuthService {
  private readonly tokenDigest: Buffer;
  private readonly sessionKey: Buffer;

  constructor(
    readonly token: string,
    /** True when this start generated the token (print the login URL prominently). */
    readonly generated = false,
  ) {
    this.tokenDigest = sha256(token);
    this.sessionKey = createHmac("sha256", token).update("modex session key v1").digest();
  }

  /** MODEX_TOKEN when given; else the token file in the data directory, created on first start. */
  static fromDataDir(args: { tokenFile: string; envToken?: string }): AuthService {
    if (args.envToken) return new AuthService(args.envToken);
    try {
      const saved = readFileSync(args.tokenFile, "utf8").trim();
      if (saved.length >= 8) return new AuthService(saved);
    } catch {
      // no token yet
    }
    const token = randomBytes(24).toString("hex");
    mkdirSync(path.dirname(args.tokenFile), { recursive: true });
    writeFileSync(args.tokenFile, `${token}\n`, { mode: 0o600 });
    chmodSync(args.tokenFile, 0o600);
    return new AuthService(token, true);
  }

  /** Constant-time comparison (of digests, so lengths never leak either). */
  verifyToken(candidate: string | null | undefined): boolean {
    if (!candidate) return false;
    return timingSafeEqual(sha256(candidate), this.tokenDigest);
  }

  /** A cookie value `<expiresMs>.<nonce>.<hmac>`; nothing is stored server-side. */
  createSession(now = Date.now()): { value: string; maxAgeSeconds: number } {
    const maxAgeSeconds = SESSION_DAYS * 86_400;
    const body = `${now + maxAgeSeconds * 1000}.${randomBytes(12).toString("hex")}`;
    return { value: `${body}.${this.sign(body)}`, maxAgeSeconds };
  }

  verifySession(value: string | null | undefined, now = Date.now()): boolean {
    if (!value) return false;
    const cut = value.lastIndexOf(".");
    if (cut <= 0) return false;
    const body = value.slice(0, cut);
    // The hex text itself is compared: decoding it first would ignore a trailing odd character.
    const mac = Buffer.from(value.slice(cut + 1));
    const expected = Buffer.from(this.sign(body));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return false;
    const expires = Number(body.split(".")[0]);
    return Number.isFinite(expires) && expires > now;
  }

  /** Bearer token or session cookie; null when neither is valid. */
  authenticate(headers: Headers): AuthResult {
    const authorization = headers.get("authorization");
    if (authorization?.toLowerCase().startsWith("bearer ")) {
      return this.verifyToken(authorization.slice(7).trim()) ? { via: "bearer" } : null;
    }
    return this.verifySession(readCookie(headers, SESSION_COOKIE)) ? { via: "cookie" } : null;
  }

  loginUrl(baseUrl: string): string {
    return `${baseUrl.replace(/\/$/, "")}/api/auth/login?token=${encodeURIComponent(this.token)}`;
  }

  private sign(body: string): string {
    return createHmac("sha256", this.sessionKey).update(body).digest("hex");
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF guard: a state-changing request whose Origin names another host than the one it was sent to
 * is refused. Requests without Origin (curl, the CLI, server-side callers) pass: they carry a bearer
 * token, or a cookie that SameSite=Lax kept from a cross-site POST anyway.
 */
export function isCrossOriginWrite(method: string, headers: Headers): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  const origin = headers.get("origin");
  if (!origin) return false;
  const host = headers.get("x-forwarded-host") ?? headers.get("host");
  try {
    return new URL(origin).host !== host;
  } catch {
    return true; // "null" or garbage
  }
}

export function readCookie(headers: Headers, name: string): string | null {
  const header = headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/** Set-Cookie for the session: httpOnly, SameSite=Lax, Path=/ (Secure when served over https). */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [`${SESSION_COOKIE}=${encodeURIComponent(value)}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`, ...(secure ? ["Secure"] : [])].join("; ");
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

const sha256 = (s: string): Buffer => createHash("sha256").update(s).digest();
