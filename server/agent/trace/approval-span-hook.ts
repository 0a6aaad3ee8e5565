import type { HookContext } from "../hook/hook-context";
import { AfterApprovalHook } from "../hook/hook-contracts";
import { Modex } from "./genai-attributes";
import type { SpanWriter } from "./span-writer";
import { ROOT_KEY, traceSessionOf } from "./trace-session";

/** The approval decision as a span under the root: from the request to the decision. */
export class ApprovalSpanHook extends AfterApprovalHook {
  constructor(private readonly writer: SpanWriter) {
    super();
  }

  afterApproval(ctx: HookContext<"AFTER_APPROVAL">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    const key = `approval:${ctx.transaction.id}`;
    this.writer.start(session, ctx.turn, {
      key,
      name: `approval ${ctx.transaction.call.name}`,
      parent: ROOT_KEY,
      startTime: ctx.transaction.createdAt,
      attributes: {
        [Modex.APPROVAL_ID]: ctx.transaction.id,
        [Modex.APPROVAL_DECISION]: ctx.decision.approved ? "approved" : "denied",
        "gen_ai.tool.name": ctx.transaction.call.name,
      },
    });
    this.writer.end(session, key, { endTime: ctx.transaction.decidedAt, status: { code: "ok" } });
  }
}
