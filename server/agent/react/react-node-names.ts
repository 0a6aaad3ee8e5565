/** The six ReAct nodes. Distinct from the engine's own `__start__` / `__end__`, which wrap them. */
export const ReactNode = {
  START: "START",
  BEFORE: "BEFORE",
  LLM: "LLM",
  TOOL: "TOOL",
  AFTER: "AFTER",
  END: "END",
} as const;
export type ReactNode = (typeof ReactNode)[keyof typeof ReactNode];
