import { TurnCustomKey } from "../../state/turn-custom";
import type { HookContext } from "../hook-context";
import { Hook, type AfterToolExecutionHook, type BeforeToolExecutionHook, type StartNodeTurnHook } from "../hook-contracts";

export interface ToolCallRecord {
  callId: string;
  name: string;
  isError: boolean;
  iteration: number;
  /** Wall time of the batch the call ran in. */
  batchMs: number;
}

export interface RuntimeContext {
  startedAt: number;
  toolCalls: ToolCallRecord[];
  batchStartedAt?: number;
}

export const RUNTIME_CONTEXT = new TurnCustomKey<RuntimeContext>("runtime_context");

/** The per-turn RuntimeContext: opened at fresh-turn start, with a ToolCallRecord for every call. */
export class RuntimeContextHook extends Hook implements StartNodeTurnHook, BeforeToolExecutionHook, AfterToolExecutionHook {
  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  startNodeTurn(ctx: HookContext<"START_NODE_TURN">): void {
    ctx.turn.custom.set(RUNTIME_CONTEXT, { startedAt: this.now(), toolCalls: [] });
  }

  beforeToolExecution(ctx: HookContext<"BEFORE_TOOL_EXECUTION">): void {
    this.context(ctx).batchStartedAt = this.now();
  }

  afterToolExecution(ctx: HookContext<"AFTER_TOOL_EXECUTION">): void {
    const rc = this.context(ctx);
    const batchMs = rc.batchStartedAt === undefined ? 0 : this.now() - rc.batchStartedAt;
    for (const r of ctx.results) rc.toolCalls.push({ callId: r.callId, name: r.name, isError: r.isError, iteration: ctx.turn.iteration, batchMs });
    rc.batchStartedAt = undefined;
  }

  private context(ctx: HookContext<"BEFORE_TOOL_EXECUTION" | "AFTER_TOOL_EXECUTION">): RuntimeContext {
    return ctx.turn.custom.getOrInit(RUNTIME_CONTEXT, () => ({ startedAt: this.now(), toolCalls: [] }));
  }
}
