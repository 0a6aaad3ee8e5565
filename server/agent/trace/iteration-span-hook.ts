import type { HookContext } from "../hook/hook-context";
import { Hook, type AfterIterationHook, type BeforeIterationHook } from "../hook/hook-contracts";
import { Modex } from "./genai-attributes";
import type { SpanWriter } from "./span-writer";
import { ITERATION_KEY, ROOT_KEY, traceSessionOf } from "./trace-session";

/** One span per ReAct iteration; chat and tool spans opened inside it become its children. */
export class IterationSpanHook extends Hook implements BeforeIterationHook, AfterIterationHook {
  constructor(private readonly writer: SpanWriter) {
    super();
  }

  beforeIteration(ctx: HookContext<"BEFORE_ITERATION">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    this.writer.start(session, ctx.turn, {
      key: ITERATION_KEY,
      name: `iteration ${ctx.iteration}`,
      parent: ROOT_KEY,
      attributes: { [Modex.ITERATION]: ctx.iteration, [Modex.TURN_ATTEMPT]: ctx.turn.turnAttempt },
    });
  }

  afterIteration(ctx: HookContext<"AFTER_ITERATION">): void {
    const session = traceSessionOf(ctx.turn);
    if (session) this.writer.end(session, ITERATION_KEY, { status: { code: "ok" } });
  }
}
