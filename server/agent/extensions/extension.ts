import type { ExtensionContext } from "./extension-context";
import type { ExtensionData, ExtensionReturns } from "./extension-data";
import type { ExtensionPoint } from "./extension-point";

type Awaitable<T> = T | Promise<T>;

/** The context an extension method receives at point P. */
export type ExtensionContextFor<P extends ExtensionPoint> = ExtensionContext<ExtensionData[P]>;
type On<P extends ExtensionPoint> = Awaitable<ExtensionReturns[P]>;

/** The default priority: between the spec's early (logging 1, rate limit 20) and late (masking 90) ones. */
export const DEFAULT_EXTENSION_PRIORITY = 50;

/**
 * The base of every extension. Subclass it, give it a unique `name`, and implement only the methods of
 * the points it handles: each is optional, and a point whose method is absent skips the extension.
 * Methods may be sync or async. Return nothing to leave things as they are; return a value to replace a
 * TRANSFORM's value; return `false` from a CANCELLABLE point to veto; return `true` from
 * `onApprovalRequired` to approve. Lower `priority` runs first.
 *
 * An extension is registered once and shared by every session: keep per-session state keyed by
 * `ctx.sessionId`. A method that throws is logged and treated as having returned nothing.
 */
export abstract class Extension {
  abstract readonly name: string;
  priority: number = DEFAULT_EXTENSION_PRIORITY;
  /** A disabled extension stays registered and is skipped. */
  enabled = true;
  /** Counters of its own for the statistics (e.g. how many secrets masking hid); optional. */
  counters?(): Record<string, number>;
  /** Zeroes those counters: called when a person resets the statistics. */
  resetCounters?(): void;

  // Message preparation
  onBeforeMessageProcess?(ctx: ExtensionContextFor<"BEFORE_MESSAGE_PROCESS">): On<"BEFORE_MESSAGE_PROCESS">;
  onBeforePromptBuild?(ctx: ExtensionContextFor<"BEFORE_PROMPT_BUILD">): On<"BEFORE_PROMPT_BUILD">;
  onAfterPromptBuild?(ctx: ExtensionContextFor<"AFTER_PROMPT_BUILD">): On<"AFTER_PROMPT_BUILD">;
  // LLM interaction
  onBeforeLlmCall?(ctx: ExtensionContextFor<"BEFORE_LLM_CALL">): On<"BEFORE_LLM_CALL">;
  onDuringLlmStreaming?(ctx: ExtensionContextFor<"DURING_LLM_STREAMING">): On<"DURING_LLM_STREAMING">;
  onAfterLlmResponse?(ctx: ExtensionContextFor<"AFTER_LLM_RESPONSE">): On<"AFTER_LLM_RESPONSE">;
  // Prompt pipeline
  onSystemPromptReady?(ctx: ExtensionContextFor<"SYSTEM_PROMPT_READY">): On<"SYSTEM_PROMPT_READY">;
  onFullPromptReady?(ctx: ExtensionContextFor<"FULL_PROMPT_READY">): On<"FULL_PROMPT_READY">;
  // Tool execution
  onBeforeToolParse?(ctx: ExtensionContextFor<"BEFORE_TOOL_PARSE">): On<"BEFORE_TOOL_PARSE">;
  onBeforeToolExecute?(ctx: ExtensionContextFor<"BEFORE_TOOL_EXECUTE">): On<"BEFORE_TOOL_EXECUTE">;
  onAfterToolExecute?(ctx: ExtensionContextFor<"AFTER_TOOL_EXECUTE">): On<"AFTER_TOOL_EXECUTE">;
  onToolError?(ctx: ExtensionContextFor<"TOOL_ERROR">): On<"TOOL_ERROR">;
  // Continuation loop
  onBeforeContinuation?(ctx: ExtensionContextFor<"BEFORE_CONTINUATION">): On<"BEFORE_CONTINUATION">;
  onAfterContinuation?(ctx: ExtensionContextFor<"AFTER_CONTINUATION">): On<"AFTER_CONTINUATION">;
  onLoopComplete?(ctx: ExtensionContextFor<"LOOP_COMPLETE">): On<"LOOP_COMPLETE">;
  // Error handling (errors of the run, not of extensions)
  onRepairableError?(ctx: ExtensionContextFor<"REPAIRABLE_ERROR">): On<"REPAIRABLE_ERROR">;
  onCriticalError?(ctx: ExtensionContextFor<"CRITICAL_ERROR">): On<"CRITICAL_ERROR">;
  // Response
  onBeforeResponseSend?(ctx: ExtensionContextFor<"BEFORE_RESPONSE_SEND">): On<"BEFORE_RESPONSE_SEND">;
  onAfterResponseSend?(ctx: ExtensionContextFor<"AFTER_RESPONSE_SEND">): On<"AFTER_RESPONSE_SEND">;
  // Session lifecycle
  onSessionCreate?(ctx: ExtensionContextFor<"SESSION_CREATE">): On<"SESSION_CREATE">;
  onSessionDestroy?(ctx: ExtensionContextFor<"SESSION_DESTROY">): On<"SESSION_DESTROY">;
  // Knowledge integration
  onBeforeRagQuery?(ctx: ExtensionContextFor<"BEFORE_RAG_QUERY">): On<"BEFORE_RAG_QUERY">;
  onAfterRagResults?(ctx: ExtensionContextFor<"AFTER_RAG_RESULTS">): On<"AFTER_RAG_RESULTS">;
  // Approval flow
  onApprovalRequired?(ctx: ExtensionContextFor<"APPROVAL_REQUIRED">): On<"APPROVAL_REQUIRED">;
  onApprovalReceived?(ctx: ExtensionContextFor<"APPROVAL_RECEIVED">): On<"APPROVAL_RECEIVED">;
}
