import type { SpanWriter } from "../trace/span-writer";
import { traceSessionOf } from "../trace/trace-session";
import type { MemoryHook, MemoryHookContext } from "./memory-hook";

export const MemoryAttributes = {
  TOKENS_BEFORE: "modex.memory.tokens_before",
  TOKENS_AFTER: "modex.memory.tokens_after",
  PRUNED_MESSAGES: "modex.memory.pruned_messages",
  COVERED_MESSAGES: "modex.memory.covered_messages",
  MODE: "modex.memory.mode",
  BUDGET: "modex.memory.budget",
} as const;

/**
 * The memory trace hook: each cleanup as a "memory cleanup" span in the turn's trace, under the open
 * iteration (or the root), from CLEANUP_TRIGGERED to CLEANUP_FINISHED, with the tokens before and after.
 * A cleanup that dies half-way (the turn stopped during the summary call) leaves no span.
 */
export class MemoryTraceHook implements MemoryHook {
  readonly name = "memory_trace";
  private readonly budgets = new WeakMap<object, number>();

  constructor(private readonly writer: SpanWriter) {}

  CLEANUP_TRIGGERED(ctx: MemoryHookContext<"CLEANUP_TRIGGERED">): void {
    this.budgets.set(ctx.turn, ctx.payload.budget);
  }

  CLEANUP_FINISHED(ctx: MemoryHookContext<"CLEANUP_FINISHED">): void {
    const session = traceSessionOf(ctx.turn);
    const parent = session?.parentKey();
    if (!session || !parent) return;
    const { summary, startedAt, at } = ctx.payload;
    const key = `memory:${summary.at}`;
    const budget = this.budgets.get(ctx.turn);
    this.writer.start(session, ctx.turn, {
      key,
      name: "memory cleanup",
      parent,
      startTime: startedAt,
      attributes: {
        [MemoryAttributes.TOKENS_BEFORE]: summary.tokensBefore,
        [MemoryAttributes.TOKENS_AFTER]: summary.tokensAfter,
        [MemoryAttributes.PRUNED_MESSAGES]: summary.prunedMessages,
        [MemoryAttributes.COVERED_MESSAGES]: summary.coveredMessages,
        [MemoryAttributes.MODE]: summary.mode,
        ...(budget ? { [MemoryAttributes.BUDGET]: budget } : {}),
      },
    });
    this.writer.end(session, key, { endTime: at, status: { code: "ok" } });
  }
}
