import { snapshotTurn, type TurnSnapshotStore } from "../../approval/turn-snapshot";
import { describeError } from "../../errors";
import { consoleLogger, type AgentLogger } from "../../logger";
import type { HookContext } from "../hook-context";
import { AfterIterationHook } from "../hook-contracts";

/** Persists a TurnSnapshot after each ReAct iteration. A failed checkpoint is logged, never fatal. */
export class CheckpointHook extends AfterIterationHook {
  constructor(
    private readonly store: TurnSnapshotStore,
    private readonly logger: AgentLogger = consoleLogger,
  ) {
    super();
  }

  async afterIteration(ctx: HookContext<"AFTER_ITERATION">): Promise<void> {
    try {
      await this.store.save(snapshotTurn(ctx.turn, null));
    } catch (e) {
      this.logger.warn(`checkpoint failed: ${describeError(e)}`, { turnId: ctx.turn.turnId, iteration: ctx.iteration });
    }
  }
}
