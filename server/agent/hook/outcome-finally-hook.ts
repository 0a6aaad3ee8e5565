import type { AgentResult } from "../state/agent-result";
import type { HookContext } from "./hook-context";
import { FinallyGraphHook } from "./hook-contracts";

/**
 * The single authority on reading a FINALLY_GRAPH (or AFTER_GRAPH) dispatch: no result and no error means
 * the turn suspended (an approval is pending) and will resume — it has not ended, and it did not crash.
 */
export function isSuspendLeg(result: AgentResult | null | undefined, error?: unknown): boolean {
  return (result === null || result === undefined) && error === undefined;
}

/**
 * Template for FINALLY_GRAPH hooks that act on a turn's outcome. `onOutcome` runs only on legs that carry
 * a result; the suspend leg (and a crash, which has no result) never reaches it, so a subclass cannot
 * forget the guard. Hooks that must also see crashes extend FinallyGraphHook and call isSuspendLeg.
 */
export abstract class OutcomeFinallyHook extends FinallyGraphHook {
  finallyGraph(ctx: HookContext<"FINALLY_GRAPH">): void | Promise<void> {
    if (ctx.result === null) return;
    return this.onOutcome(ctx, ctx.result);
  }

  abstract onOutcome(ctx: HookContext<"FINALLY_GRAPH">, result: AgentResult): void | Promise<void>;
}
