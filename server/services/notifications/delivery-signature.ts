import { createHmac, randomBytes } from "node:crypto";

/** `sha256=<hex of HMAC-SHA256(secret, body)>`: GitHub's form, as Modex's incoming hooks check it. */
export function signDelivery(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** 32 random bytes, hex: shown once when the notification is made. */
export function newNotificationSecret(): string {
  return randomBytes(32).toString("hex");
}
