import type { TokenUsage } from "../llm/token-usage";
import { TurnCustomKey } from "./turn-custom";

/** What a stream cut short by a cancel had produced; the cancel handler keeps it as an interrupted message. */
export interface InterruptedPartial {
  content: string;
  reasoning: string;
  toolNames: string[];
}

/** The well-known keys of TurnState.custom. */
export const TurnCustomKeys = {
  /** One-shot: presence asks AFTER's gate to start another turn attempt; popped whatever the decision. */
  CONTINUATION_REQUEST: new TurnCustomKey<true>("continuation_request"),
  /** The watchdog: extends the turn budget by exactly one, once. */
  CONTINUATION_RENEW_MAX_TURNS: new TurnCustomKey<true>("continuation_renew_max_turns"),
  /** Set once the renew flag has been honoured this turn, so it extends the budget only once. */
  CONTINUATION_RENEWED: new TurnCustomKey<true>("continuation_renewed"),
  INTERRUPTED_PARTIAL: new TurnCustomKey<InterruptedPartial>("interrupted_partial"),
  /**
   * The tokens of the model call a cancel cut short (usually estimated: the provider's usage comes last),
   * already in `turn.usage`. No AFTER_LLM_RESPONSE reports that call, so the trace closes its span with
   * them and the token budget counts them when the run ends. Set at most once: a cut ends the turn.
   */
  CUT_CALL_USAGE: new TurnCustomKey<TokenUsage>("cut_call_usage"),
  /** How many times a crash resumed this turn from its iteration checkpoint (kept in the checkpoint: a bound, not a loop). */
  CHECKPOINT_RESUMES: new TurnCustomKey<number>("checkpoint_resumes"),
} as const;
