import { snapshotTurn, type TurnSnapshotStore } from "../../approval/turn-snapshot";
import { describeError } from "../../errors";
import { consoleLogger, type AgentLogger } from "../../logger";
import { ReactNode } from "../../react/react-node-names";
import type { TurnState } from "../../state/turn-state";
import type { HookContext } from "../hook-context";
import { AfterIterationHook } from "../hook-contracts";

/**
 * Persists a TurnSnapshot after each ReAct iteration whose tool batch finished: the turn's messages with
 * every tool result so far, resumable at LLM (ReactAgent.resumeCheckpoint), so a turn cut by a crash goes
 * on with its next model call and runs none of those tools again. An iteration that ended in an answer
 * is not a checkpoint: the turn ends right after it, and resuming there would ask the model once more
 * after its final answer. A failed checkpoint is logged, never fatal (the previous one stands).
 */
export class CheckpointHook extends AfterIterationHook {
  constructor(
    private readonly store: TurnSnapshotStore,
    private readonly logger: AgentLogger = consoleLogger,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async afterIteration(ctx: HookContext<"AFTER_ITERATION">): Promise<void> {
    if (!resumableAtLlm(ctx.turn)) return;
    try {
      await this.store.save(snapshotTurn(ctx.turn, ReactNode.LLM, this.now()));
    } catch (e) {
      this.logger.warn(`checkpoint failed: ${describeError(e)}`, { turnId: ctx.turn.turnId, iteration: ctx.iteration });
    }
  }
}

/** The iteration ran its whole tool batch: the model's next call is what comes next. */
function resumableAtLlm(turn: TurnState): boolean {
  return turn.pendingToolCalls.length === 0 && turn.messages.at(-1)?.role === "tool";
}
