import type { HookContext } from "./hook-context";
import { HOOK_METHOD, type HookPoint } from "./hook-point";

type Awaitable<T> = T | Promise<T>;

/**
 * The base of every hook. A hook is shared by all sessions of a pool: its fields hold only immutable
 * configuration; per-turn state goes in `ctx.turn.custom`.
 *
 * A hook for one point extends that point's class (`class X extends BeforeLlmHook`). A hook for several
 * points extends `Hook` and `implements` each point's class; the per-point classes test membership by
 * shape (`instanceof BeforeLlmHook` is true for any Hook with a `beforeLlm` method), so the runner
 * dispatches by type either way and points a hook does not implement are skipped.
 */
export abstract class Hook {
  get name(): string {
    return this.constructor.name;
  }
}

function pointMembership(pointClass: () => abstract new () => Hook, point: HookPoint) {
  const method = HOOK_METHOD[point];
  return function (this: unknown, value: unknown): boolean {
    // Subclasses of a point class keep ordinary instanceof semantics.
    if (this !== pointClass()) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof Hook && typeof (value as unknown as Record<string, unknown>)[method] === "function";
  };
}

export abstract class BeforeGraphHook extends Hook {
  /** Fires at the agent's run() entry, once per run() call (an approval resume is a new call). */
  abstract beforeGraph(ctx: HookContext<"BEFORE_GRAPH">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => BeforeGraphHook, "BEFORE_GRAPH");
}

export abstract class AfterGraphHook extends Hook {
  /** Fires at run() exit on every path, once per run() call. */
  abstract afterGraph(ctx: HookContext<"AFTER_GRAPH">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => AfterGraphHook, "AFTER_GRAPH");
}

export abstract class FinallyGraphHook extends Hook {
  /** Fires in run()'s finally block, even on error or suspend (see isSuspendLeg / OutcomeFinallyHook). */
  abstract finallyGraph(ctx: HookContext<"FINALLY_GRAPH">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => FinallyGraphHook, "FINALLY_GRAPH");
}

export abstract class StartNodeTurnHook extends Hook {
  /** Fires inside the START node on every entry (fresh and resumed). */
  abstract startNodeTurn(ctx: HookContext<"START_NODE_TURN">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => StartNodeTurnHook, "START_NODE_TURN");
}

export abstract class EndNodeTurnHook extends Hook {
  /** Fires inside the END node. */
  abstract endNodeTurn(ctx: HookContext<"END_NODE_TURN">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => EndNodeTurnHook, "END_NODE_TURN");
}

export abstract class BeforeTurnHook extends Hook {
  /** Fires inside BEFORE, once per turn attempt (a continuation re-fires it). */
  abstract beforeTurn(ctx: HookContext<"BEFORE_TURN">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => BeforeTurnHook, "BEFORE_TURN");
}

export abstract class AfterTurnHook extends Hook {
  /** Fires inside AFTER, once per turn attempt, before the continuation gate. */
  abstract afterTurn(ctx: HookContext<"AFTER_TURN">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => AfterTurnHook, "AFTER_TURN");
}

export abstract class BeforeIterationHook extends Hook {
  /** Fires in the LLM node before each ReAct iteration's model call. */
  abstract beforeIteration(ctx: HookContext<"BEFORE_ITERATION">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => BeforeIterationHook, "BEFORE_ITERATION");
}

export abstract class AfterIterationHook extends Hook {
  /** Fires when an iteration ends (after its tool batch, or after a tool-less response). */
  abstract afterIteration(ctx: HookContext<"AFTER_ITERATION">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => AfterIterationHook, "AFTER_ITERATION");
}

export abstract class BeforeToolExecutionHook extends Hook {
  /** Fires in the TOOL node before a tool batch runs. */
  abstract beforeToolExecution(ctx: HookContext<"BEFORE_TOOL_EXECUTION">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => BeforeToolExecutionHook, "BEFORE_TOOL_EXECUTION");
}

export abstract class AfterToolExecutionHook extends Hook {
  /** Fires in the TOOL node after a tool batch ran. */
  abstract afterToolExecution(ctx: HookContext<"AFTER_TOOL_EXECUTION">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => AfterToolExecutionHook, "AFTER_TOOL_EXECUTION");
}

export abstract class AfterLlmResponseHook extends Hook {
  /** Fires in the LLM node once the response is assembled (or the stream failed). */
  abstract afterLlmResponse(ctx: HookContext<"AFTER_LLM_RESPONSE">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => AfterLlmResponseHook, "AFTER_LLM_RESPONSE");
}

export abstract class FinalizeContentHook extends Hook {
  /** Synchronous and chained: each hook receives the previous hook's output and returns the new content. */
  abstract finalizeContent(ctx: HookContext<"FINALIZE_CONTENT">): string;
  static [Symbol.hasInstance] = pointMembership(() => FinalizeContentHook, "FINALIZE_CONTENT");
}

export abstract class BeforeLlmHook extends Hook {
  /** Fires in the LLM node right before the provider call. */
  abstract beforeLlm(ctx: HookContext<"BEFORE_LLM">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => BeforeLlmHook, "BEFORE_LLM");
}

export abstract class AfterApprovalHook extends Hook {
  /** Fires after an approval decision is applied, before the graph resumes. */
  abstract afterApproval(ctx: HookContext<"AFTER_APPROVAL">): Awaitable<void>;
  static [Symbol.hasInstance] = pointMembership(() => AfterApprovalHook, "AFTER_APPROVAL");
}

/** The per-point class for each point: the runner's dispatch table. */
export const HOOK_CLASS = {
  BEFORE_GRAPH: BeforeGraphHook,
  AFTER_GRAPH: AfterGraphHook,
  FINALLY_GRAPH: FinallyGraphHook,
  START_NODE_TURN: StartNodeTurnHook,
  END_NODE_TURN: EndNodeTurnHook,
  BEFORE_TURN: BeforeTurnHook,
  AFTER_TURN: AfterTurnHook,
  BEFORE_ITERATION: BeforeIterationHook,
  AFTER_ITERATION: AfterIterationHook,
  BEFORE_TOOL_EXECUTION: BeforeToolExecutionHook,
  AFTER_TOOL_EXECUTION: AfterToolExecutionHook,
  AFTER_LLM_RESPONSE: AfterLlmResponseHook,
  FINALIZE_CONTENT: FinalizeContentHook,
  BEFORE_LLM: BeforeLlmHook,
  AFTER_APPROVAL: AfterApprovalHook,
} as const satisfies { [P in HookPoint]: abstract new () => Hook };

/** The method signature a hook implements for point P. */
export type HookMethodFor<P extends HookPoint> = (ctx: HookContext<P>) => Awaitable<void>;
