import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { isServiceError, toServiceError, type ServiceErrorCode } from "@/server/services/errors";

/**
 * The one place where service error codes become transport codes: tRPC error codes for the routers,
 * HTTP statuses for the REST routes. Adding a service code breaks the build here until it is mapped.
 */
const MAPPING: { [C in ServiceErrorCode]: { trpc: TRPC_ERROR_CODE_KEY; http: number } } = {
  NOT_FOUND: { trpc: "NOT_FOUND", http: 404 },
  INVALID_STATE: { trpc: "CONFLICT", http: 409 },
  INVALID_SPEC: { trpc: "BAD_REQUEST", http: 400 },
  BAD_REQUEST: { trpc: "BAD_REQUEST", http: 400 },
  UNAUTHORIZED: { trpc: "UNAUTHORIZED", http: 401 },
  FORBIDDEN: { trpc: "FORBIDDEN", http: 403 },
  // tRPC has no 507: its clients see SERVICE_UNAVAILABLE with the message; REST says 507.
  STORAGE_FULL: { trpc: "SERVICE_UNAVAILABLE", http: 507 },
  STORAGE_UNAVAILABLE: { trpc: "SERVICE_UNAVAILABLE", http: 503 },
  IDEMPOTENCY_MISMATCH: { trpc: "UNPROCESSABLE_CONTENT", http: 422 },
  // The IETF draft's 409 for a request whose key's first request is still at work.
  IDEMPOTENCY_IN_PROGRESS: { trpc: "CONFLICT", http: 409 },
  PEER_UNAVAILABLE: { trpc: "SERVICE_UNAVAILABLE", http: 503 },
  PAYLOAD_TOO_LARGE: { trpc: "PAYLOAD_TOO_LARGE", http: 413 },
};

/** A TRPCError for a service error (keeping it as `cause`), or null for anything else. */
export function toTRPCError(error: unknown): TRPCError | null {
  const normalized = toServiceError(error);
  if (!isServiceError(normalized)) return null;
  return new TRPCError({ code: MAPPING[normalized.code].trpc, message: normalized.message, cause: normalized });
}

export function httpStatusOf(code: ServiceErrorCode): number {
  return MAPPING[code].http;
}

/** `{ path, message }` issues of a schema failure (zod or any Standard Schema), or null. */
export function schemaIssuesOf(cause: unknown): { path: (string | number)[]; message: string }[] | null {
  const issues = (cause as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues)) return null;
  return issues.map((i: { path?: readonly unknown[]; message?: string }) => ({
    path: (i.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? (p as { key: string | number }).key : (p as string | number))),
    message: i.message ?? "invalid",
  }));
}
