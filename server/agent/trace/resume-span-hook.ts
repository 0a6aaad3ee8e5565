import type { HookContext } from "../hook/hook-context";
import { BeforeGraphHook } from "../hook/hook-contracts";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { Modex } from "./genai-attributes";
import type { SpanWriter } from "./span-writer";
import { ROOT_KEY, traceSessionOf } from "./trace-session";

/**
 * Marks where a turn picked up, as an instant span under the root: after a restart, from its iteration
 * checkpoint ("resumed after a restart, from the end of step N"), or after an approval decision
 * ("resumed after the approval decision, in step N": the step that asked). The spans before it were
 * written by the leg (maybe the process) that ran those steps; the spans after it by this one.
 */
export class ResumeSpanHook extends BeforeGraphHook {
  constructor(private readonly writer: SpanWriter) {
    super();
  }

  beforeGraph(ctx: HookContext<"BEFORE_GRAPH">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session || !ctx.resumedFrom) return;
    const step = ctx.turn.iteration;
    const restart = ctx.resumedFrom === "checkpoint";
    const count = ctx.turn.custom.get(TurnCustomKeys.CHECKPOINT_RESUMES);
    const key = "resume";
    const at = this.writer.now();
    this.writer.start(session, ctx.turn, {
      key,
      name: restart ? `resumed after a restart, from the end of step ${step}` : `resumed after the approval decision, in step ${step}`,
      parent: ROOT_KEY,
      startTime: at,
      attributes: {
        [Modex.RESUMED_FROM]: restart ? "restart" : "approval",
        [Modex.RESUMED_STEP]: step,
        ...(restart && count !== undefined ? { [Modex.RESUMED_COUNT]: count } : {}),
      },
    });
    this.writer.end(session, key, { endTime: at, status: { code: "ok" } });
  }
}
