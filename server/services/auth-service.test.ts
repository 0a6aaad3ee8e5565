import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuthService, isCrossOriginWrite, readCookie } from "./auth-service";

const dirs: string[] = [];
const tempTokenFile = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-auth-"));
  dirs.push(dir);
  return path.join(dir, "nested", "access-token");
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const TOKEN = "secret-token-0123456789abcdef0123456789";

describe("AuthService", () => {
  it("generates a random token on first start, keeps it (0600) and reuses it on the next start", () => {
    const file = tempTokenFile();
    const first = AuthService.fromDataDir({ tokenFile: file });
    expect(first.generated).toBe(true);
    expect(first.token).toMatch(/^[0-9a-f]{48}$/);
    expect(readFileSync(file, "utf8").trim()).toBe(first.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = AuthService.fromDataDir({ tokenFile: file });
    expect(second).toMatchObject({ token: first.token, generated: false });
    expect(AuthService.fromDataDir({ tokenFile: tempTokenFile() }).token).not.toBe(first.token);
  });

  it("MODEX_TOKEN wins and writes no file", () => {
    const file = tempTokenFile();
    const envToken = "from-the-env-0123456789abcdef0123";
    expect(AuthService.fromDataDir({ tokenFile: file, envToken }).token).toBe(envToken);
    expect(() => statSync(file)).toThrow();
  });

  it("refuses a token shorter than 32 characters, from MODEX_TOKEN or from the file, saying what to do", () => {
    expect(() => AuthService.fromDataDir({ tokenFile: tempTokenFile(), envToken: "short-token-0123456789" })).toThrow(
      /MODEX_TOKEN has 22 characters; at least 32 are required/,
    );
    const file = tempTokenFile();
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "hand-written-token\n");
    expect(() => AuthService.fromDataDir({ tokenFile: file })).toThrow(`the access token from ${file} has 18 characters`);
  });

  it("tightens a saved token file readable by others to 0600", () => {
    const file = tempTokenFile();
    const token = AuthService.fromDataDir({ tokenFile: file }).token;
    chmodSync(file, 0o644);
    expect(AuthService.fromDataDir({ tokenFile: file }).token).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("accepts the bearer token or a signed, unexpired session cookie, nothing else", () => {
    const auth = new AuthService(TOKEN);
    const headers = (h: Record<string, string>) => new Headers(h);
    expect(auth.authenticate(headers({ authorization: `Bearer ${TOKEN}` }))).toEqual({ via: "bearer" });
    expect(auth.authenticate(headers({ authorization: `Bearer ${TOKEN}2` }))).toBeNull();
    expect(auth.authenticate(headers({}))).toBeNull();
    const { value } = auth.createSession(1_000);
    expect(auth.verifySession(value, 2_000)).toBe(true);
    expect(auth.verifySession(value, 1_000 + 31 * 86_400_000)).toBe(false); // expired
    expect(auth.authenticate(headers({ cookie: `modex_session=${value}` }))).toEqual(null); // created at t=1s: long expired now
    const fresh = auth.createSession().value;
    expect(auth.authenticate(headers({ cookie: `a=b; modex_session=${fresh}` }))).toEqual({ via: "cookie", session: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(new AuthService(`another-${TOKEN}`).verifySession(fresh)).toBe(false); // a new token logs browsers out
    const [exp, nonce, mac] = fresh.split(".");
    expect(auth.verifySession(`${Number(exp) + 1}.${nonce}.${mac}`)).toBe(false); // tampered expiry
    expect(auth.verifySession(`${fresh}0`)).toBe(false); // trailing text after the signature
    expect(auth.verifySession(`${exp}.${nonce}.${mac.toUpperCase()}`)).toBe(false); // the signature is exact text
  });

  it("names each sign-in session by a ref: the same for every request of that login, another for another login, never the cookie", () => {
    const auth = new AuthService(TOKEN);
    const refOf = (cookie: string) => {
      const result = auth.authenticate(new Headers({ cookie: `modex_session=${cookie}` }));
      return result && "session" in result ? result.session : null;
    };
    const first = auth.createSession().value;
    const second = auth.createSession().value;
    expect(refOf(first)).toBe(refOf(first)); // two tabs of one login
    expect(refOf(first)).not.toBe(refOf(second)); // another sign-in
    const [, nonce, mac] = first.split(".");
    for (const secret of [first, nonce, mac]) expect(secret).not.toContain(refOf(first)!);
    // Keyed by the token: the same nonce under another token is another ref (and that cookie is refused anyway).
    expect(auth.sessionRefOf(nonce)).not.toBe(new AuthService(`another-${TOKEN}`).sessionRefOf(nonce));
    // An ended session has no ref: it is not signed in.
    auth.endSession(first);
    expect(refOf(first)).toBeNull();
  });

  it("prints a login URL carrying the token", () => {
    expect(new AuthService(TOKEN).loginUrl("http://localhost:3000/")).toBe(`http://localhost:3000/api/auth/login?token=${TOKEN}`);
  });
});

describe("logout", () => {
  it("ends that session only, for every AuthService on the data directory, and after a restart", () => {
    const tokenFile = tempTokenFile();
    const revocationsFile = path.join(path.dirname(tokenFile), "revoked-sessions");
    const routes = AuthService.fromDataDir({ tokenFile, revocationsFile });
    const proxy = AuthService.fromDataDir({ tokenFile, revocationsFile }); // Next bundles proxy.ts apart
    const ended = routes.createSession().value;
    const other = routes.createSession().value;
    expect(proxy.verifySession(ended)).toBe(true); // read once before the logout: the change must be seen

    expect(routes.endSession(ended)).toBe(true);
    expect(routes.verifySession(ended)).toBe(false);
    expect(proxy.verifySession(ended)).toBe(false);
    expect(proxy.verifySession(other)).toBe(true);
    expect(AuthService.fromDataDir({ tokenFile, revocationsFile }).verifySession(ended)).toBe(false); // restarted
    expect(statSync(revocationsFile).mode & 0o777).toBe(0o600);
  });

  it("ignores a cookie that is not a valid session, and forgets expired revocations", () => {
    const tokenFile = tempTokenFile();
    const revocationsFile = path.join(path.dirname(tokenFile), "revoked-sessions");
    const auth = AuthService.fromDataDir({ tokenFile, revocationsFile });
    expect(auth.endSession(null)).toBe(false);
    expect(auth.endSession("1.2.3")).toBe(false);
    const old = auth.createSession(Date.now() - 30 * 86_400_000 + 1_000).value; // expires in 1 s
    auth.endSession(old);
    auth.endSession(auth.createSession().value, Date.now() + 2_000); // the next logout, 2 s later
    expect(readFileSync(revocationsFile, "utf8").trim().split("\n")).toHaveLength(1);
  });
});

describe("cross-origin writes", () => {
  const h = (x: Record<string, string>) => new Headers({ host: "127.0.0.1:3000", ...x });
  it.each([
    ["GET", { origin: "https://evil.example" }, false],
    ["POST", {}, false],
    ["POST", { origin: "http://127.0.0.1:3000" }, false],
    ["POST", { origin: "https://evil.example" }, true],
    ["DELETE", { origin: "http://localhost:3000" }, true],
    ["POST", { origin: "null" }, true],
    // X-Forwarded-Host is anyone's to send: it names the host only when a trusted proxy sets it.
    ["POST", { origin: "https://modex.example", "x-forwarded-host": "modex.example" }, true],
  ] as const)("%s with %j → refused: %s", (method, headers, refused) => {
    expect(isCrossOriginWrite(method, h(headers))).toBe(refused);
  });

  it("trusts X-Forwarded-Host behind a proxy (MODEX_TRUST_PROXY=on)", () => {
    const headers = h({ origin: "https://modex.example", "x-forwarded-host": "modex.example" });
    expect(isCrossOriginWrite("POST", headers, { trustProxy: true })).toBe(false);
    expect(isCrossOriginWrite("POST", h({ origin: "https://evil.example", "x-forwarded-host": "modex.example" }), { trustProxy: true })).toBe(true);
  });

  it("reads one cookie among several", () => {
    expect(readCookie(new Headers({ cookie: "a=1; modex_session=x%3Dy; b=2" }), "modex_session")).toBe("x=y");
    expect(readCookie(new Headers({}), "modex_session")).toBeNull();
  });
});
