import { isGraphError, GRAPH_ERROR_CODES } from "@/server/graph/errors";
import { isSpecError, type SpecIssue } from "@/server/graph/spec/spec-errors";

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
} as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[keyof typeof SERVICE_ERROR_CODES];

export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly details?: { issues?: readonly SpecIssue[]; status?: string },
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export const isServiceError = (e: unknown): e is ServiceError => e instanceof ServiceError;

export const notFound = (what: string, id: string) => new ServiceError("NOT_FOUND", `${what} ${id} not found`);

export const invalidState = (instanceId: string, status: string, wanted: string) =>
  new ServiceError("INVALID_STATE", `instance ${instanceId} is ${status}; ${wanted}`, { status });

/**
 * Normalizes what the layers below throw into a ServiceError where one applies (spec errors, missing
 * instances, illegal transitions); anything else is returned unchanged and is a real failure (500).
 */
export function toServiceError(error: unknown): unknown {
  if (isServiceError(error)) return error;
  if (isSpecError(error)) return new ServiceError("INVALID_SPEC", error.message, { issues: error.issues });
  if (isGraphError(error)) {
    if (error.code === GRAPH_ERROR_CODES.INSTANCE_NOT_FOUND) return new ServiceError("NOT_FOUND", error.message);
    if (error.code === GRAPH_ERROR_CODES.INSTANCE_STATE) return new ServiceError("INVALID_STATE", error.message);
  }
  return error;
}
