import { StopReason } from "../../stop-reason";
import { TurnCustomKey } from "../../state/turn-custom";
import { TurnCustomKeys } from "../../state/turn-custom-keys";
import type { HookContext } from "../hook-context";
import { Hook, type AfterLlmResponseHook, type AfterTurnHook } from "../hook-contracts";
import { systemReminder } from "./system-reminder";

export const MAX_NUDGES = 10;

interface LengthGuardState {
  /** The last response hit the output limit without content or tool calls. */
  degenerate: boolean;
  nudges: number;
}

export const LENGTH_GUARD = new TurnCustomKey<LengthGuardState>("length_guard.state");

/**
 * Recovers degenerate max-tokens endings (a response cut by the output limit with no content and no
 * tool calls). At AFTER_TURN such an ending is nudged: a reminder plus a continuation request. After
 * MAX_NUDGES nudges — or when no further attempt is possible — it rewrites the turn's result in place
 * to ERROR, so a content-less turn fails honestly instead of completing silently. It never raises.
 */
export class LengthGuardHook extends Hook implements AfterLlmResponseHook, AfterTurnHook {
  constructor(private readonly maxNudges: number = MAX_NUDGES) {
    super();
  }

  afterLlmResponse(ctx: HookContext<"AFTER_LLM_RESPONSE">): void {
    const state = ctx.turn.custom.getOrInit(LENGTH_GUARD, () => ({ degenerate: false, nudges: 0 }));
    const r = ctx.response;
    state.degenerate = r !== null && r.finishReason === "length" && r.content.trim() === "" && r.toolCalls.length === 0;
  }

  afterTurn(ctx: HookContext<"AFTER_TURN">): void {
    const state = ctx.turn.custom.get(LENGTH_GUARD);
    if (!state?.degenerate || ctx.result.stopReason !== StopReason.COMPLETED) return;
    const canContinue = ctx.turn.turnAttempt < ctx.turn.maxTurns;
    if (state.nudges >= this.maxNudges || !canContinue) {
      ctx.result.stopReason = StopReason.ERROR;
      ctx.result.content = "The model kept hitting its output limit without producing an answer.";
      ctx.result.error = { code: "LENGTH_GUARD", message: `degenerate max-tokens ending after ${state.nudges} nudges` };
      return;
    }
    state.nudges += 1;
    ctx.turn.messages.push(systemReminder("Your last response was cut off by the output limit before it said anything. Answer concisely."));
    ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
  }
}
