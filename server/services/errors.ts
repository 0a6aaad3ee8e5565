import { storageFailure } from "@/server/db/storage-errors";
import { GRAPH_ERROR_CODES } from "@/server/graph/errors";
import { SPEC_ERROR_CODE, type SpecIssue } from "@/server/graph/spec/spec-errors";

/**
 * Every error a service raises on purpose. Each carries a literal `code`; the API layer maps codes
 * to tRPC codes and HTTP statuses in one place (`server/api/service-error-mapping.ts`), so a service
 * never knows which transport called it.
 */
export const SERVICE_ERROR_CODES = {
  NOT_FOUND: "NOT_FOUND",
  /** The instance is not in a status the operation accepts (e.g. resume of a RUNNING instance). */
  INVALID_STATE: "INVALID_STATE",
  /** A spec (YAML or data) that does not compile; `issues` hold paths, lines and columns. */
  INVALID_SPEC: "INVALID_SPEC",
  /** Arguments that pass the schema but make no sense here (an unknown node name, say). */
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  /** The database is full (disk or quota): nothing was written. */
  STORAGE_FULL: "STORAGE_FULL",
  /** The database refused or lost the write (I/O error, read-only, rolled back): nothing was written. */
  STORAGE_UNAVAILABLE: "STORAGE_UNAVAILABLE",
  /** An Idempotency-Key sent again with a different request. */
  IDEMPOTENCY_MISMATCH: "IDEMPOTENCY_MISMATCH",
  /**
   * An Idempotency-Key whose first request is still at work (PostgreSQL): retry with the same key and get
   * its answer. Never "refused": a client that gave up here and sent the work again would do it twice.
   */
  IDEMPOTENCY_IN_PROGRESS: "IDEMPOTENCY_IN_PROGRESS",
  /** An argument larger than the operation accepts (a text to preview past its bound): nothing was done. */
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  /** Another process of the cluster had to act (the one running a chat turn) and did not answer in time. */
  PEER_UNAVAILABLE: "PEER_UNAVAILABLE",
} as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[keyof typeof SERVICE_ERROR_CODES];

// Next.js bundles instrumentation.ts (which creates the services) apart from the route handlers (which
// catch their errors), so a class can exist twice in one process and `instanceof` fails across the two.
// Errors are therefore recognized by a registered symbol and by their literal codes, never by class.
const BRAND = Symbol.for("modex.ServiceError");

export class ServiceError extends Error {
  readonly [BRAND] = true;
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly details?: { issues?: readonly SpecIssue[]; status?: string; missing?: NotFoundWhat },
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export const isServiceError = (e: unknown): e is ServiceError =>
  typeof e === "object" && e !== null && (e as { [BRAND]?: unknown })[BRAND] === true;

/** A write the storage refused or lost (STORAGE_FULL or STORAGE_UNAVAILABLE): worth retrying once it works. */
export const isStorageServiceError = (e: unknown): boolean =>
  isServiceError(e) && (e.code === "STORAGE_FULL" || e.code === "STORAGE_UNAVAILABLE");

/**
 * What a NOT_FOUND names as missing, when a client must tell them apart: an agent turn's trace link to a
 * run that exists but whose node ran no agent turn, or not that turn, is not "there is no run".
 */
export type NotFoundWhat = "instance" | "node" | "turn";

export const notFound = (what: string, id: string) => new ServiceError("NOT_FOUND", `${what} ${id} not found`);

export const invalidState = (instanceId: string, status: string, wanted: string) =>
  new ServiceError("INVALID_STATE", `instance ${instanceId} is ${status}; ${wanted}`, { status });

/**
 * Normalizes what the layers below throw into a ServiceError where one applies (spec errors, missing
 * instances, illegal transitions); anything else is returned unchanged and is a real failure (500).
 */
export function toServiceError(error: unknown): unknown {
  if (isServiceError(error)) return error;
  if (typeof error !== "object" || error === null) return error;
  const { code, message, issues } = error as { code?: unknown; message?: string; issues?: unknown };
  if (code === SPEC_ERROR_CODE && Array.isArray(issues)) return new ServiceError("INVALID_SPEC", String(message), { issues });
  if (code === GRAPH_ERROR_CODES.INSTANCE_NOT_FOUND) return new ServiceError("NOT_FOUND", String(message));
  if (code === GRAPH_ERROR_CODES.INSTANCE_STATE) return new ServiceError("INVALID_STATE", String(message));
  // A storage error that no service explained (see durability.ts): the same codes, without the path.
  const failure = storageFailure(error);
  if (failure === "full") {
    return new ServiceError("STORAGE_FULL", `the database is full (${message}): nothing was written; free space, then retry`);
  }
  if (failure === "unavailable") {
    return new ServiceError("STORAGE_UNAVAILABLE", `the database refused the write (${code}: ${message}): retry later`);
  }
  if (code === "RUN_FENCED") return new ServiceError("STORAGE_UNAVAILABLE", String(message));
  return error;
}
