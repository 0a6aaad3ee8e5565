/**
 * Call boundaries an interceptor can wrap. Four are wired; four are reserved (defined, not wired) and
 * registering against them is rejected, so an interceptor can never silently never run.
 */
export const InterceptorScope = {
  TOOL_CALL: "TOOL_CALL",
  TURN: "TURN",
  ITERATION: "ITERATION",
  LLM_STREAM: "LLM_STREAM",
  AGENT_RUN: "AGENT_RUN",
  LLM_CALL: "LLM_CALL",
  PIPELINE_STEP: "PIPELINE_STEP",
  POOL_TASK: "POOL_TASK",
} as const;
export type InterceptorScope = (typeof InterceptorScope)[keyof typeof InterceptorScope];

export const LIVE_SCOPES = ["TOOL_CALL", "TURN", "ITERATION", "LLM_STREAM"] as const satisfies readonly InterceptorScope[];
export type LiveScope = (typeof LIVE_SCOPES)[number];

export function isLiveScope(scope: InterceptorScope): scope is LiveScope {
  return (LIVE_SCOPES as readonly string[]).includes(scope);
}

/** The method an interceptor implements for each live scope. */
export const SCOPE_METHOD = {
  TOOL_CALL: "aroundToolCall",
  TURN: "aroundTurn",
  ITERATION: "aroundIteration",
  LLM_STREAM: "aroundLlmStream",
} as const satisfies { [S in LiveScope]: string };
