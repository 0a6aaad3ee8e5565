import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chain, type Awaitable } from "@/server/graph/awaitable";
import { SessionRevocations, type SessionRevocationStore } from "./session-revocations";

export const SESSION_COOKIE = "modex_session";
const SESSION_DAYS = 30;
/** Shorter tokens are refused: 32 random characters are out of reach of any guessing, rate limited or not. */
export const MIN_TOKEN_LENGTH = 32;
/** Hex characters of a session ref: 64 bits, no two sign-ins alike in practice. */
const SESSION_REF_LENGTH = 16;

/**
 * How a request is signed in. `session` (a cookie): the sign-in session's ref, a short keyed hash of the
 * session's nonce: the same in every tab of that login, another for every other sign-in, and not the
 * cookie (nothing that lets anyone sign in): what answers and decisions record, and what a page compares.
 */
export type AuthResult = { via: "bearer" } | { via: "cookie"; session: string } | null;

/**
 * Auth on by default, as Jupyter does it: one access token per data directory, generated on first
 * start (or set with MODEX_TOKEN). The browser trades it for a session cookie signed with a key
 * derived from the token (HMAC), so changing the token logs every browser out; REST and the CLI send
 * it as `Authorization: Bearer <token>`. A logout revokes its session (SessionRevocations), so a copy of
 * the cookie stops working at once.
 */
export class AuthService {
  private readonly tokenDigest: Buffer;
  private readonly sessionKey: Buffer;

  constructor(
    readonly token: string,
    /** True when this start generated the token (print the login URL prominently). */
    readonly generated = false,
    private readonly revocations: SessionRevocationStore = new SessionRevocations(),
  ) {
    checkedToken(token, "the caller");
    this.tokenDigest = sha256(token);
    this.sessionKey = createHmac("sha256", token).update("modex session key v1").digest();
  }

  /**
   * MODEX_TOKEN when given; else the token file in the data directory, created (0600) on first start.
   * A token shorter than MIN_TOKEN_LENGTH is refused with a message that says what to do.
   */
  static fromDataDir(args: { tokenFile: string; envToken?: string; revocationsFile?: string; revocations?: SessionRevocationStore }): AuthService {
    // Given a store (PostgreSQL's, shared by several web processes), the file is not used.
    const revocations = args.revocations ?? new SessionRevocations(args.revocationsFile);
    if (args.envToken) return new AuthService(checkedToken(args.envToken, "MODEX_TOKEN"), false, revocations);
    const saved = readSavedToken(args.tokenFile);
    if (saved) return new AuthService(checkedToken(saved, args.tokenFile), false, revocations);
    const token = randomBytes(24).toString("hex");
    mkdirSync(path.dirname(args.tokenFile), { recursive: true });
    writeFileSync(args.tokenFile, `${token}\n`, { mode: 0o600 });
    chmodSync(args.tokenFile, 0o600);
    return new AuthService(token, true, revocations);
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

  /** Synchronous with the file's revocations (the common case: no promise per request). */
  verifySession(value: string | null | undefined, now = Date.now()): Awaitable<boolean> {
    return chain(this.liveSession(value, now), (session) => session !== null);
  }

  /** The id of a session signed here, unexpired and not ended; else null. */
  private liveSession(value: string | null | undefined, now: number): Awaitable<{ id: string } | null> {
    const session = this.signedSession(value, now);
    if (session === null) return null;
    return chain(this.revocations.isRevoked(session.id), (revoked) => (revoked ? null : session));
  }

  /**
   * Logout: the session is refused from now on, by every module of this server and after a restart (and
   * by every web process sharing the revocations' database). Answers once the revocation is committed.
   */
  endSession(value: string | null | undefined, now = Date.now()): Awaitable<boolean> {
    const session = this.signedSession(value, now);
    if (!session) return false;
    return chain(this.revocations.revoke(session.id, session.expires, now), () => true);
  }

  /** The id and expiry of a cookie value this server signed and that has not expired; else null. */
  private signedSession(value: string | null | undefined, now: number): { id: string; expires: number } | null {
    if (!value) return null;
    const cut = value.lastIndexOf(".");
    if (cut <= 0) return null;
    const body = value.slice(0, cut);
    // The hex text itself is compared: decoding it first would ignore a trailing odd character.
    const mac = Buffer.from(value.slice(cut + 1));
    const expected = Buffer.from(this.sign(body));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return null;
    const [expiresText, id] = body.split(".");
    const expires = Number(expiresText);
    return Number.isFinite(expires) && expires > now && id ? { id, expires } : null;
  }

  /** Bearer token or session cookie; null when neither is valid. */
  authenticate(headers: Headers): Awaitable<AuthResult> {
    const authorization = headers.get("authorization");
    if (authorization?.toLowerCase().startsWith("bearer ")) {
      return this.verifyToken(authorization.slice(7).trim()) ? { via: "bearer" } : null;
    }
    return chain(this.liveSession(readCookie(headers, SESSION_COOKIE), Date.now()), (session): AuthResult =>
      session ? { via: "cookie", session: this.sessionRefOf(session.id) } : null,
    );
  }

  /** The ref of the session whose nonce is `id`: keyed (the token's), so a nonce seen elsewhere tells nothing. */
  sessionRefOf(id: string): string {
    return createHmac("sha256", this.sessionKey).update(`session ref:${id}`).digest("hex").slice(0, SESSION_REF_LENGTH);
  }

  loginUrl(baseUrl: string): string {
    return `${baseUrl.replace(/\/$/, "")}/api/auth/login?token=${encodeURIComponent(this.token)}`;
  }

  private sign(body: string): string {
    return createHmac("sha256", this.sessionKey).update(body).digest("hex");
  }
}

/** A token that is too short to keep: the reason is the message printed at start-up. */
function checkedToken(token: string, source: string): string {
  if (token.length >= MIN_TOKEN_LENGTH) return token;
  throw new Error(
    `the access token from ${source} has ${token.length} characters; at least ${MIN_TOKEN_LENGTH} are required ` +
      "(e.g. `openssl rand -hex 24`; or remove it to have one generated)",
  );
}

/** The token file's content (its mode tightened to 0600 if it was looser), or null when there is none. */
function readSavedToken(tokenFile: string): string | null {
  let saved: string;
  try {
    saved = readFileSync(tokenFile, "utf8").trim();
  } catch {
    return null; // no token yet
  }
  if (saved === "") return null;
  if ((statSync(tokenFile).mode & 0o077) !== 0) chmodSync(tokenFile, 0o600);
  return saved;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF guard: a state-changing request whose Origin names another host than the one it was sent to
 * is refused. Requests without Origin (curl, the CLI, server-side callers) pass: they carry a bearer
 * token, or a cookie that SameSite=Lax kept from a cross-site POST anyway. X-Forwarded-Host names the
 * host only when a trusted proxy sets it (`trustProxy`): any client can send that header.
 */
export function isCrossOriginWrite(method: string, headers: Headers, options: { trustProxy?: boolean } = {}): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  const origin = headers.get("origin");
  if (!origin) return false;
  const host = requestHost(headers, options.trustProxy ?? false);
  try {
    return new URL(origin).host !== host;
  } catch {
    return true; // "null" or garbage
  }
}

/** The host a request was sent to: Host, or the first X-Forwarded-Host when a trusted proxy sets it. */
export function requestHost(headers: Headers, trustProxy: boolean): string | null {
  const forwarded = trustProxy ? headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  return forwarded || headers.get("host");
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
