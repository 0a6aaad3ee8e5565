import { isSuspendLeg } from "../hook/outcome-finally-hook";
import type { HookContext } from "../hook/hook-context";
import { Hook, type FinallyGraphHook, type StartNodeTurnHook } from "../hook/hook-contracts";
import { StopReason } from "../stop-reason";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { describeError } from "../errors";
import { GenAI, GenAIOperation, Modex } from "./genai-attributes";
import { newTraceId, type SpanWriter } from "./span-writer";
import { CHAT_KEY, ROOT_KEY, TRACE_SESSION, TraceSession, traceSessionOf } from "./trace-session";
import { usageAttributes } from "./usage-attributes";

/** The status of a span cut short by a stopped turn: unset (not an error), saying why it ended. */
export const STOPPED_STATUS = { code: "unset", message: "stopped: the turn was cancelled while this ran" } as const;

/**
 * Brackets the turn with the root span, which every other span parents to (so it is always registered
 * first). Opened at fresh-turn start; closed at FINALLY_GRAPH on terminal legs only — a suspend leg
 * (isSuspendLeg) keeps it open across the approval wait. Spans still open at the end are closed as errors.
 */
export class RootSpanHook extends Hook implements StartNodeTurnHook, FinallyGraphHook {
  constructor(
    private readonly writer: SpanWriter,
    private readonly agentName: string = "react",
  ) {
    super();
  }

  startNodeTurn(ctx: HookContext<"START_NODE_TURN">): void {
    const session = new TraceSession(newTraceId());
    ctx.turn.custom.set(TRACE_SESSION, session);
    this.writer.start(session, ctx.turn, {
      key: ROOT_KEY,
      name: `${GenAIOperation.INVOKE_AGENT} ${this.agentName}`,
      attributes: {
        [GenAI.OPERATION_NAME]: GenAIOperation.INVOKE_AGENT,
        [GenAI.AGENT_NAME]: this.agentName,
        [GenAI.CONVERSATION_ID]: ctx.turn.sessionId,
        [Modex.TURN_ID]: ctx.turn.turnId,
      },
    });
  }

  finallyGraph(ctx: HookContext<"FINALLY_GRAPH">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    if (isSuspendLeg(ctx.result, ctx.error)) return this.writer.suspendLive(session);
    // A turn the person stopped cut its model call or tool short: that is not a failure of the call,
    // and a red "error" in the trace read as one. Other exits that leave a span open are errors.
    const stopped = ctx.result?.stopReason === StopReason.CANCELLED;
    const leftOpen = stopped ? STOPPED_STATUS : ({ code: "error", message: "span left open when the turn ended" } as const);
    // The model call a stop cut short has no AFTER_LLM_RESPONSE: its span gets the call's tokens here
    // (usually an estimate, marked so; the provider's usage comes in the stream's last chunk).
    const cut = ctx.turn.custom.get(TurnCustomKeys.CUT_CALL_USAGE);
    for (const key of [...session.open.keys()].reverse()) {
      if (key === ROOT_KEY) continue;
      this.writer.end(session, key, { status: leftOpen, ...(key === CHAT_KEY && cut ? { attributes: usageAttributes(cut) } : {}) });
    }
    const failed = ctx.error !== undefined || ctx.result?.stopReason === StopReason.ERROR;
    this.writer.end(session, ROOT_KEY, {
      attributes: {
        // The turn's own total when it finished (the minimal tier has no model-call spans to add it up).
        ...usageAttributes(ctx.result?.usage ?? ctx.turn.usage),
        ...(ctx.result ? { [Modex.STOP_REASON]: ctx.result.stopReason, [Modex.TURN_ATTEMPT]: ctx.result.turnAttempts } : {}),
        ...(ctx.error !== undefined ? { [GenAI.ERROR_TYPE]: describeError(ctx.error) } : {}),
      },
      status: failed ? { code: "error", message: ctx.result?.error?.message ?? describeError(ctx.error) } : { code: "ok" },
    });
  }
}
