/** What the runner does with a hook failure (any error but an AgentControlError, including a timeout). */
export const HookErrorPolicy = {
  /** Drop it silently (a timeout still logs its warning). */
  IGNORE: "ignore",
  /** Log it and go on with the next hook. The default. */
  LOG: "log",
  /** Raise a HookError, ending the dispatch. */
  ABORT: "abort",
} as const;
export type HookErrorPolicy = (typeof HookErrorPolicy)[keyof typeof HookErrorPolicy];
