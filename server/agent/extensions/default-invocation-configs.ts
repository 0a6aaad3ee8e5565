import type { ExtensionPoint } from "./extension-point";
import type { InvocationConfig } from "./invocation-config";

const COLLECT = { mode: "COLLECT" } as const;
const CANCELLABLE = { mode: "CANCELLABLE" } as const;
const UNTIL_HANDLED = { mode: "UNTIL_HANDLED" } as const;

/**
 * The canonical mode of every point (the spec's reference tables), used when an invocation names no
 * config of its own. Typed over every point, so a new point without a default breaks the build.
 */
export const DEFAULT_INVOCATION_CONFIGS: { readonly [P in ExtensionPoint]: InvocationConfig } = {
  BEFORE_MESSAGE_PROCESS: COLLECT,
  BEFORE_PROMPT_BUILD: COLLECT,
  AFTER_PROMPT_BUILD: { mode: "TRANSFORM", transformKey: "prompt", expectedType: "array" },
  BEFORE_LLM_CALL: CANCELLABLE,
  // The spec's COLLECT, chained here so that stream filters compose (masking needs to replace the chunk).
  DURING_LLM_STREAMING: { mode: "TRANSFORM", transformKey: "chunk", expectedType: "string" },
  AFTER_LLM_RESPONSE: { mode: "TRANSFORM", transformKey: "response", expectedType: "string" },
  SYSTEM_PROMPT_READY: { mode: "TRANSFORM", transformKey: "systemPrompt", expectedType: "string" },
  FULL_PROMPT_READY: { mode: "TRANSFORM", transformKey: "prompt", expectedType: "array" },
  BEFORE_TOOL_PARSE: { mode: "TRANSFORM", transformKey: "llmResponse", expectedType: "string" },
  BEFORE_TOOL_EXECUTE: CANCELLABLE,
  AFTER_TOOL_EXECUTE: { mode: "TRANSFORM", transformKey: "toolResult", expectedType: "object" },
  TOOL_ERROR: COLLECT,
  BEFORE_CONTINUATION: CANCELLABLE,
  AFTER_CONTINUATION: { mode: "TRANSFORM", transformKey: "response", expectedType: "string" },
  LOOP_COMPLETE: { mode: "TRANSFORM", transformKey: "finalResponse", expectedType: "string" },
  REPAIRABLE_ERROR: COLLECT,
  CRITICAL_ERROR: COLLECT,
  BEFORE_RESPONSE_SEND: { mode: "TRANSFORM", transformKey: "response", expectedType: "string" },
  AFTER_RESPONSE_SEND: COLLECT,
  SESSION_CREATE: COLLECT,
  SESSION_DESTROY: COLLECT,
  BEFORE_RAG_QUERY: { mode: "TRANSFORM", transformKey: "query", expectedType: "string" },
  AFTER_RAG_RESULTS: { mode: "TRANSFORM", transformKey: "results", expectedType: "array" },
  APPROVAL_REQUIRED: UNTIL_HANDLED,
  APPROVAL_RECEIVED: COLLECT,
};
