/**
 * The 25 named places where extensions take part in a run (spec: AutoBot's hook points).
 * Called ExtensionPoint, not HookPoint, because `hook/` already owns HookPoint: the agent's own fifteen
 * lifecycle points, which ExtensionHook maps onto these (see server/agent/README.md, "Extensions").
 */
export const ExtensionPoint = {
  // Message preparation
  BEFORE_MESSAGE_PROCESS: "BEFORE_MESSAGE_PROCESS",
  BEFORE_PROMPT_BUILD: "BEFORE_PROMPT_BUILD",
  AFTER_PROMPT_BUILD: "AFTER_PROMPT_BUILD",
  // LLM interaction
  BEFORE_LLM_CALL: "BEFORE_LLM_CALL",
  DURING_LLM_STREAMING: "DURING_LLM_STREAMING",
  AFTER_LLM_RESPONSE: "AFTER_LLM_RESPONSE",
  // Prompt pipeline
  SYSTEM_PROMPT_READY: "SYSTEM_PROMPT_READY",
  FULL_PROMPT_READY: "FULL_PROMPT_READY",
  // Tool execution
  BEFORE_TOOL_PARSE: "BEFORE_TOOL_PARSE",
  BEFORE_TOOL_EXECUTE: "BEFORE_TOOL_EXECUTE",
  AFTER_TOOL_EXECUTE: "AFTER_TOOL_EXECUTE",
  TOOL_ERROR: "TOOL_ERROR",
  // Continuation loop
  BEFORE_CONTINUATION: "BEFORE_CONTINUATION",
  AFTER_CONTINUATION: "AFTER_CONTINUATION",
  LOOP_COMPLETE: "LOOP_COMPLETE",
  // Error handling
  REPAIRABLE_ERROR: "REPAIRABLE_ERROR",
  CRITICAL_ERROR: "CRITICAL_ERROR",
  // Response
  BEFORE_RESPONSE_SEND: "BEFORE_RESPONSE_SEND",
  AFTER_RESPONSE_SEND: "AFTER_RESPONSE_SEND",
  // Session lifecycle
  SESSION_CREATE: "SESSION_CREATE",
  SESSION_DESTROY: "SESSION_DESTROY",
  // Knowledge integration
  BEFORE_RAG_QUERY: "BEFORE_RAG_QUERY",
  AFTER_RAG_RESULTS: "AFTER_RAG_RESULTS",
  // Approval flow
  APPROVAL_REQUIRED: "APPROVAL_REQUIRED",
  APPROVAL_RECEIVED: "APPROVAL_RECEIVED",
} as const;
export type ExtensionPoint = (typeof ExtensionPoint)[keyof typeof ExtensionPoint];

export const ALL_EXTENSION_POINTS: readonly ExtensionPoint[] = Object.values(ExtensionPoint);

/**
 * The groups of the spec's reference tables. Its overview says "7 groups", but its tables are ten (the
 * prompt pipeline, session, knowledge and approval tables were added later); the tables are what we keep.
 */
export const ExtensionGroup = {
  MESSAGE_PREPARATION: "message_preparation",
  LLM_INTERACTION: "llm_interaction",
  PROMPT_PIPELINE: "prompt_pipeline",
  TOOL_EXECUTION: "tool_execution",
  CONTINUATION_LOOP: "continuation_loop",
  ERROR_HANDLING: "error_handling",
  RESPONSE: "response",
  SESSION_LIFECYCLE: "session_lifecycle",
  KNOWLEDGE: "knowledge",
  APPROVAL: "approval",
} as const;
export type ExtensionGroup = (typeof ExtensionGroup)[keyof typeof ExtensionGroup];

/**
 * The method an extension implements for each point: `on` + the point in camel case (the spec derives
 * `on_before_llm_call` from BEFORE_LLM_CALL the same way). Written out so a typo breaks the build.
 */
export const EXTENSION_METHOD = {
  BEFORE_MESSAGE_PROCESS: "onBeforeMessageProcess",
  BEFORE_PROMPT_BUILD: "onBeforePromptBuild",
  AFTER_PROMPT_BUILD: "onAfterPromptBuild",
  BEFORE_LLM_CALL: "onBeforeLlmCall",
  DURING_LLM_STREAMING: "onDuringLlmStreaming",
  AFTER_LLM_RESPONSE: "onAfterLlmResponse",
  SYSTEM_PROMPT_READY: "onSystemPromptReady",
  FULL_PROMPT_READY: "onFullPromptReady",
  BEFORE_TOOL_PARSE: "onBeforeToolParse",
  BEFORE_TOOL_EXECUTE: "onBeforeToolExecute",
  AFTER_TOOL_EXECUTE: "onAfterToolExecute",
  TOOL_ERROR: "onToolError",
  BEFORE_CONTINUATION: "onBeforeContinuation",
  AFTER_CONTINUATION: "onAfterContinuation",
  LOOP_COMPLETE: "onLoopComplete",
  REPAIRABLE_ERROR: "onRepairableError",
  CRITICAL_ERROR: "onCriticalError",
  BEFORE_RESPONSE_SEND: "onBeforeResponseSend",
  AFTER_RESPONSE_SEND: "onAfterResponseSend",
  SESSION_CREATE: "onSessionCreate",
  SESSION_DESTROY: "onSessionDestroy",
  BEFORE_RAG_QUERY: "onBeforeRagQuery",
  AFTER_RAG_RESULTS: "onAfterRagResults",
  APPROVAL_REQUIRED: "onApprovalRequired",
  APPROVAL_RECEIVED: "onApprovalReceived",
} as const satisfies { [P in ExtensionPoint]: `on${string}` };
export type ExtensionMethodName = (typeof EXTENSION_METHOD)[ExtensionPoint];

/** The group of each point (the spec's reference tables). */
export const EXTENSION_POINT_GROUP = {
  BEFORE_MESSAGE_PROCESS: "message_preparation",
  BEFORE_PROMPT_BUILD: "message_preparation",
  AFTER_PROMPT_BUILD: "message_preparation",
  BEFORE_LLM_CALL: "llm_interaction",
  DURING_LLM_STREAMING: "llm_interaction",
  AFTER_LLM_RESPONSE: "llm_interaction",
  SYSTEM_PROMPT_READY: "prompt_pipeline",
  FULL_PROMPT_READY: "prompt_pipeline",
  BEFORE_TOOL_PARSE: "tool_execution",
  BEFORE_TOOL_EXECUTE: "tool_execution",
  AFTER_TOOL_EXECUTE: "tool_execution",
  TOOL_ERROR: "tool_execution",
  BEFORE_CONTINUATION: "continuation_loop",
  AFTER_CONTINUATION: "continuation_loop",
  LOOP_COMPLETE: "continuation_loop",
  REPAIRABLE_ERROR: "error_handling",
  CRITICAL_ERROR: "error_handling",
  BEFORE_RESPONSE_SEND: "response",
  AFTER_RESPONSE_SEND: "response",
  SESSION_CREATE: "session_lifecycle",
  SESSION_DESTROY: "session_lifecycle",
  BEFORE_RAG_QUERY: "knowledge",
  AFTER_RAG_RESULTS: "knowledge",
  APPROVAL_REQUIRED: "approval",
  APPROVAL_RECEIVED: "approval",
} as const satisfies { [P in ExtensionPoint]: ExtensionGroup };
