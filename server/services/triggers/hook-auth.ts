import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { HookRecord } from "./hook-store";

/** The signature header of an `hmac` hook: `sha256=<hex of HMAC-SHA256(secret, raw body)>` (GitHub's form). */
export const SIGNATURE_HEADER = "x-modex-signature";

/** A new hook secret: 32 random bytes, base64url (43 characters). */
export const newHookSecret = (): string => randomBytes(32).toString("base64url");

export const signBody = (secret: string, body: string | Buffer): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/**
 * Whether a call carries this hook's credential. Both sides are hashed to equal lengths first, so the
 * comparison takes the same time whatever the guess (no length or prefix leak).
 */
export function hookCallAuthorized(hook: Pick<HookRecord, "auth" | "secret">, headers: Headers, body: string): boolean {
  if (hook.auth === "bearer") {
    const authorization = headers.get("authorization") ?? "";
    const token = authorization.toLowerCase().startsWith("bearer ") ? authorization.slice(7).trim() : "";
    return token !== "" && sameSecret(token, hook.secret);
  }
  const signature = headers.get(SIGNATURE_HEADER)?.trim() ?? "";
  return signature !== "" && sameSecret(signature.toLowerCase(), signBody(hook.secret, body));
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
