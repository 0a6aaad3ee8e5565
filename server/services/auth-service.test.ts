import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
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
    expect(AuthService.fromDataDir({ tokenFile: file, envToken: "from-the-env" }).token).toBe("from-the-env");
    expect(() => statSync(file)).toThrow();
  });

  it("accepts the bearer token or a signed, unexpired session cookie, nothing else", () => {
    const auth = new AuthService("secret-token");
    const headers = (h: Record<string, string>) => new Headers(h);
    expect(auth.authenticate(headers({ authorization: "Bearer secret-token" }))).toEqual({ via: "bearer" });
    expect(auth.authenticate(headers({ authorization: "Bearer secret-token2" }))).toBeNull();
    expect(auth.authenticate(headers({}))).toBeNull();
    const { value } = auth.createSession(1_000);
    expect(auth.verifySession(value, 2_000)).toBe(true);
    expect(auth.verifySession(value, 1_000 + 31 * 86_400_000)).toBe(false); // expired
    expect(auth.authenticate(headers({ cookie: `modex_session=${value}` }))).toEqual(null); // created at t=1s: long expired now
    const fresh = auth.createSession().value;
    expect(auth.authenticate(headers({ cookie: `a=b; modex_session=${fresh}` }))).toEqual({ via: "cookie" });
    expect(new AuthService("another-token").verifySession(fresh)).toBe(false); // a new token logs browsers out
    const [exp, nonce, mac] = fresh.split(".");
    expect(auth.verifySession(`${Number(exp) + 1}.${nonce}.${mac}`)).toBe(false); // tampered expiry
    expect(auth.verifySession(`${fresh}0`)).toBe(false); // trailing text after the signature
    expect(auth.verifySession(`${exp}.${nonce}.${mac.toUpperCase()}`)).toBe(false); // the signature is exact text
  });

  it("prints a login URL carrying the token", () => {
    expect(new AuthService("t0ken-123").loginUrl("http://localhost:3000/")).toBe("http://localhost:3000/api/auth/login?token=t0ken-123");
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
    ["POST", { origin: "https://modex.example", "x-forwarded-host": "modex.example" }, false],
  ] as const)("%s with %j → refused: %s", (method, headers, refused) => {
    expect(isCrossOriginWrite(method, h(headers))).toBe(refused);
  });

  it("reads one cookie among several", () => {
    expect(readCookie(new Headers({ cookie: "a=1; modex_session=x%3Dy; b=2" }), "modex_session")).toBe("x=y");
    expect(readCookie(new Headers({}), "modex_session")).toBeNull();
  });
});
