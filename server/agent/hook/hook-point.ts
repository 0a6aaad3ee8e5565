/** The fifteen lifecycle points, in the order a turn meets them (BEFORE_GRAPH … AFTER_APPROVAL). */
export const HookPoint = {
  BEFORE_GRAPH: "BEFORE_GRAPH",
  AFTER_GRAPH: "AFTER_GRAPH",
  FINALLY_GRAPH: "FINALLY_GRAPH",
  START_NODE_TURN: "START_NODE_TURN",
  END_NODE_TURN: "END_NODE_TURN",
  BEFORE_TURN: "BEFORE_TURN",
  AFTER_TURN: "AFTER_TURN",
  BEFORE_ITERATION: "BEFORE_ITERATION",
  AFTER_ITERATION: "AFTER_ITERATION",
  BEFORE_TOOL_EXECUTION: "BEFORE_TOOL_EXECUTION",
  AFTER_TOOL_EXECUTION: "AFTER_TOOL_EXECUTION",
  AFTER_LLM_RESPONSE: "AFTER_LLM_RESPONSE",
  FINALIZE_CONTENT: "FINALIZE_CONTENT",
  BEFORE_LLM: "BEFORE_LLM",
  AFTER_APPROVAL: "AFTER_APPROVAL",
} as const;
export type HookPoint = (typeof HookPoint)[keyof typeof HookPoint];

export const ALL_HOOK_POINTS: readonly HookPoint[] = Object.values(HookPoint);

/** The method a hook implements for each point. */
export const HOOK_METHOD = {
  BEFORE_GRAPH: "beforeGraph",
  AFTER_GRAPH: "afterGraph",
  FINALLY_GRAPH: "finallyGraph",
  START_NODE_TURN: "startNodeTurn",
  END_NODE_TURN: "endNodeTurn",
  BEFORE_TURN: "beforeTurn",
  AFTER_TURN: "afterTurn",
  BEFORE_ITERATION: "beforeIteration",
  AFTER_ITERATION: "afterIteration",
  BEFORE_TOOL_EXECUTION: "beforeToolExecution",
  AFTER_TOOL_EXECUTION: "afterToolExecution",
  AFTER_LLM_RESPONSE: "afterLlmResponse",
  FINALIZE_CONTENT: "finalizeContent",
  BEFORE_LLM: "beforeLlm",
  AFTER_APPROVAL: "afterApproval",
} as const satisfies { [P in HookPoint]: string };
