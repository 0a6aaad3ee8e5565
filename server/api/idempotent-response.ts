import "server-only";
import type { IdempotentAnswer } from "@/server/services/idempotency-service";
import { json } from "./rest";

/** The request's Idempotency-Key header, if any (see IdempotencyService). */
export const idempotencyKeyOf = (request: Request): string | null => request.headers.get("idempotency-key");

/** An idempotent command's answer: the first request's status and body, marked when it is a replay. */
export function idempotentResponse<R>(answer: IdempotentAnswer<R>): Response {
  return json(answer.body, answer.status, answer.replayed ? { "idempotent-replayed": "true" } : {});
}
