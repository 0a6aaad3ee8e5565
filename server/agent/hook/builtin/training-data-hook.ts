import type { AgentResult } from "../../state/agent-result";
import { TurnCustomKey } from "../../state/turn-custom";
import { StopReason } from "../../stop-reason";
import { GenAI, Training } from "../../trace/genai-attributes";
import { ROOT_KEY, traceSessionOf } from "../../trace/trace-session";
import { SPAN_HOOK_PRIORITY } from "../../trace/create-span-hooks";
import type { HookContext } from "../hook-context";
import type { BeforeGraphHook } from "../hook-contracts";
import { OutcomeFinallyHook } from "../outcome-finally-hook";

/** Where the turn's own messages begin in its session's conversation (persisted with a suspended turn's snapshot). */
const MESSAGES_FROM = new TurnCustomKey<number>("training_data.messages_from");

/**
 * Runs just before the root span hook at FINALLY_GRAPH (span hooks run first at every point), so the tag
 * lands on the root span before it is ended and written.
 */
export const TRAINING_DATA_PRIORITY = SPAN_HOOK_PRIORITY - 1;

/** Whether a turn's outcome makes a training example: an answer, no error, not stopped, not vetoed. */
export function isTrainingRelevant(result: AgentResult): boolean {
  return result.stopReason === StopReason.COMPLETED && result.error === undefined && result.content.trim() !== "";
}

/**
 * The built-in `training_data` hook: on a terminal leg, tags the turn's root span `gen_ai.training.relevant`
 * (true only for a turn that completed normally) and records which of the session's stored messages are the
 * turn's (`modex.training.messages`: [from, to)), plus the system prompt, so an export rebuilds the example
 * from the stored conversation. The suspend leg is skipped (OutcomeFinallyHook); a crash has no result and
 * stays untagged, which readers take as not relevant. Without a root span (tracing off) it does nothing.
 */
export class TrainingDataHook extends OutcomeFinallyHook implements BeforeGraphHook {
  constructor(private readonly systemPrompt?: string) {
    super();
  }

  beforeGraph(ctx: HookContext<"BEFORE_GRAPH">): void {
    // A fresh leg only: the user's message is appended after this, so the turn's messages start here.
    if (!ctx.resumed) ctx.turn.custom.set(MESSAGES_FROM, ctx.turn.messages.length);
  }

  onOutcome(ctx: HookContext<"FINALLY_GRAPH">, result: AgentResult): void {
    const root = traceSessionOf(ctx.turn)?.open.get(ROOT_KEY);
    if (!root) return;
    const from = ctx.turn.custom.get(MESSAGES_FROM) ?? 0;
    const attributes = {
      [Training.RELEVANT]: isTrainingRelevant(result),
      [Training.MESSAGES]: [from, ctx.turn.messages.length],
      ...(this.systemPrompt ? { [GenAI.SYSTEM_INSTRUCTIONS]: this.systemPrompt } : {}),
    };
    Object.assign(root.record.attributes, attributes);
    root.otel?.setAttributes(attributes);
  }
}
