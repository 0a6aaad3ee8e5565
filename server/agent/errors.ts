import { StopReason } from "./stop-reason";

/**
 * The agent layer's errors. Two families that must never be confused:
 *
 * - `AgentControlError` (and subclasses): control flow. A hook or interceptor raises one to end the turn
 *   on purpose; every layer re-raises it untouched and one handler renders it as an AgentResult.
 * - `AgentError`: a real failure, carrying a literal `code` from `AGENT_ERROR_CODES`.
 *
 * Cancellation by AbortSignal (path B) is a third thing: an `AbortError`, recognised by `isAbortError`.
 */
export const AGENT_CONTROL_CODES = {
  CANCELLED: "AGENT_CANCELLED",
  TIMEOUT: "AGENT_TIMEOUT",
  POLICY_VIOLATION: "POLICY_VIOLATION",
  LOOP_DETECTED: "LOOP_DETECTED",
} as const;
export type AgentControlCode = (typeof AGENT_CONTROL_CODES)[keyof typeof AGENT_CONTROL_CODES];

export const AGENT_ERROR_CODES = {
  HOOK_FAILED: "HOOK_FAILED",
  HOOK_TIMEOUT: "HOOK_TIMEOUT",
  INTERCEPTOR_SCOPE_RESERVED: "INTERCEPTOR_SCOPE_RESERVED",
  INTERCEPTOR_CONTRACT: "INTERCEPTOR_CONTRACT",
  TOOL_NOT_FOUND: "TOOL_NOT_FOUND",
  TOOL_DUPLICATE: "TOOL_DUPLICATE",
  TOOL_ARGS_INVALID: "TOOL_ARGS_INVALID",
  TOOL_FAILED: "TOOL_FAILED",
  STREAM_EOF: "STREAM_EOF",
  STREAM_FAILED: "STREAM_FAILED",
  PROVIDER_FAILED: "PROVIDER_FAILED",
  SCRIPT_EXHAUSTED: "SCRIPT_EXHAUSTED",
  INVALID_STATE: "INVALID_STATE",
  KNOWLEDGE_BASE_REJECTED: "KNOWLEDGE_BASE_REJECTED",
  EXTENSION_FAILED: "EXTENSION_FAILED",
} as const;
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[keyof typeof AGENT_ERROR_CODES];

// ---------------------------------------------------------------------------------------------------
// Control flow

export interface AgentControlErrorOptions {
  /** Text shown to the user as the turn's final content; a default is rendered when absent. */
  userContent?: string;
  cause?: unknown;
}

export abstract class AgentControlError extends Error {
  abstract readonly code: AgentControlCode;
  abstract readonly stopReason: StopReason;
  readonly userContent: string | undefined;

  constructor(message: string, options: AgentControlErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.userContent = options.userContent;
  }
}

export class AgentCancelledError extends AgentControlError {
  readonly code = AGENT_CONTROL_CODES.CANCELLED;
  readonly stopReason = StopReason.CANCELLED;
}

export class AgentTimeoutError extends AgentControlError {
  readonly code = AGENT_CONTROL_CODES.TIMEOUT;
  readonly stopReason = StopReason.TIMEOUT;
}

export class PolicyViolationError extends AgentControlError {
  readonly code = AGENT_CONTROL_CODES.POLICY_VIOLATION;
  readonly stopReason = StopReason.POLICY_VIOLATION;
}

export class LoopDetectedError extends AgentControlError {
  readonly code = AGENT_CONTROL_CODES.LOOP_DETECTED;
  readonly stopReason = StopReason.LOOP_DETECTED;
}

/**
 * An extension vetoed a step of the turn by returning `false` at a CANCELLABLE point (BEFORE_LLM_CALL,
 * BEFORE_CONTINUATION). A policy exit: the turn ends with stop reason policy_violation, saying who vetoed.
 */
export class ExtensionVetoError extends PolicyViolationError {
  readonly point: string;
  readonly extensionName: string | undefined;

  /** `reason`: what the vetoing extension set as `ctx.data.reason`, said to the user. */
  constructor(init: { point: string; extensionName?: string; reason?: string }) {
    const who = init.extensionName ? `the ${init.extensionName} extension` : "an extension";
    const why = init.reason ? `: ${init.reason}` : "";
    super(`${init.point} was cancelled by ${who}${why}`, { userContent: `The turn was stopped by ${who} (${init.point})${why}.` });
    this.point = init.point;
    this.extensionName = init.extensionName;
  }
}

export function isAgentControlError(e: unknown): e is AgentControlError {
  return e instanceof AgentControlError;
}
export function isAgentCancelledError(e: unknown): e is AgentCancelledError {
  return e instanceof AgentCancelledError;
}
export function isAgentTimeoutError(e: unknown): e is AgentTimeoutError {
  return e instanceof AgentTimeoutError;
}
export function isPolicyViolationError(e: unknown): e is PolicyViolationError {
  return e instanceof PolicyViolationError;
}
export function isLoopDetectedError(e: unknown): e is LoopDetectedError {
  return e instanceof LoopDetectedError;
}
export function isExtensionVetoError(e: unknown): e is ExtensionVetoError {
  return e instanceof ExtensionVetoError;
}

/** Path-B cancellation: the operation's AbortSignal fired (`AbortError`, as fetch and the openai SDK throw). */
export function isAbortError(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const name = (e as { name?: unknown }).name;
  return name === "AbortError" || name === "APIUserAbortError";
}

/** Errors no layer may swallow or convert: control errors and cancellation. */
export function mustPropagate(e: unknown): boolean {
  return isAgentControlError(e) || isAbortError(e);
}

/** The error thrown for a signal that fired: its reason when that is an Error, else a standard AbortError. */
export function abortErrorFrom(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(typeof reason === "string" ? reason : "The operation was aborted", "AbortError");
}

// ---------------------------------------------------------------------------------------------------
// Real failures

export class AgentError extends Error {
  readonly code: AgentErrorCode;

  constructor(code: AgentErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

export class HookError extends AgentError {
  readonly hookName: string;

  constructor(init: {
    code: typeof AGENT_ERROR_CODES.HOOK_FAILED | typeof AGENT_ERROR_CODES.HOOK_TIMEOUT;
    hookName: string;
    message: string;
    cause?: unknown;
  }) {
    super(init.code, init.message, { cause: init.cause });
    this.hookName = init.hookName;
  }
}

/** A knowledge-base action that cannot be done as asked (the tool reports it to the model). */
export class KnowledgeBaseError extends AgentError {
  constructor(message: string) {
    super(AGENT_ERROR_CODES.KNOWLEDGE_BASE_REJECTED, message);
  }
}

/**
 * An extension method threw. Never raised to the caller (a failing extension must not break the run): the
 * invoker logs it, counts it and goes on as if the extension had returned nothing.
 */
export class ExtensionError extends AgentError {
  readonly extensionName: string;
  readonly point: string;

  constructor(init: { extensionName: string; point: string; cause: unknown }) {
    super(AGENT_ERROR_CODES.EXTENSION_FAILED, `extension ${init.extensionName} failed at ${init.point}: ${describeError(init.cause)}`, { cause: init.cause });
    this.extensionName = init.extensionName;
    this.point = init.point;
  }
}

export function isExtensionError(e: unknown): e is ExtensionError {
  return e instanceof ExtensionError;
}

export function isAgentError(e: unknown): e is AgentError {
  return e instanceof AgentError;
}
export function isKnowledgeBaseError(e: unknown): e is KnowledgeBaseError {
  return e instanceof KnowledgeBaseError;
}
export function isHookError(e: unknown): e is HookError {
  return e instanceof HookError;
}
export function isHookTimeout(e: unknown): e is HookError {
  return isHookError(e) && e.code === AGENT_ERROR_CODES.HOOK_TIMEOUT;
}
export function isInterceptorScopeError(e: unknown): e is AgentError {
  return isAgentError(e) && e.code === AGENT_ERROR_CODES.INTERCEPTOR_SCOPE_RESERVED;
}
export function isToolError(e: unknown): e is AgentError {
  return (
    isAgentError(e) &&
    (e.code === AGENT_ERROR_CODES.TOOL_NOT_FOUND ||
      e.code === AGENT_ERROR_CODES.TOOL_DUPLICATE ||
      e.code === AGENT_ERROR_CODES.TOOL_ARGS_INVALID ||
      e.code === AGENT_ERROR_CODES.TOOL_FAILED)
  );
}

/** Chain boundaries normalize unknown throws with this; control errors pass through unchanged. */
export function toAgentError(e: unknown, code: AgentErrorCode = AGENT_ERROR_CODES.INVALID_STATE): AgentError {
  if (isAgentError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new AgentError(code, message, { cause: e });
}

/** A one-line description of anything thrown, for logs and error results. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
