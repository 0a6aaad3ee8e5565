/** How a message sent while a turn runs is handled (spec, cancellation path B). */
export const BUSY_INPUT_MODES = ["INTERRUPT", "QUEUE", "STEER"] as const;
export type BusyInputMode = (typeof BUSY_INPUT_MODES)[number];

/** What a chat session shows, in order; each carries a sequence number for replay after a reconnect or a restart. */
export type ChatEvent = { seq: number; sessionId: string; turnId: string; at: number } & ChatEventBody;

export type ChatEventBody =
  | { type: "user_message"; text: string }
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call"; callId: string; name: string; arguments: string }
  | { type: "tool_result"; callId: string; name: string; content: string; isError: boolean }
  | {
      type: "turn_completed";
      stopReason: string;
      content: string;
      /** Input plus output tokens of the turn (the footer shows the split). */
      tokens: number;
      inputTokens?: number;
      outputTokens?: number;
      /** The counts are (partly) Modex's estimate: the provider reported none for a call (a stopped stream). */
      estimated?: true;
      /** What the turn's tokens cost on its agent's model (the model price table), when it has a price. */
      cost?: number;
      currency?: string;
      error: string | null;
    }
  | { type: "turn_failed"; message: string }
  /** The turn suspended before a tool call that needs approval; it waits for `decide`. */
  | { type: "approval_requested"; transactionId: string; callId: string; name: string; arguments: string }
  /** `by` names who decided ("you": the person in this chat); `at` is when. */
  | { type: "approval_decided"; transactionId: string; callId: string; approved: boolean; reason: string | null; by: string }
  /** A message sent while a turn ran, and what its busy-input mode did with it. */
  | { type: "busy_input"; mode: BusyInputMode; text: string }
  /** A message queued behind the running turn now starts its own turn (the turn id of this event). */
  | { type: "queued_started"; text: string }
  /**
   * A memory cleanup before a model call of this turn: the chat's `coveredMessages` first messages are, for
   * the model, the `summary` (`mode` consolidated) or a prune marker (`pruned`); `prunedMessages` of them
   * were summarized now. The transcript still shows every message; the chat view draws a divider here.
   */
  | { type: "context_summarized"; summary: string; mode: "consolidated" | "pruned"; prunedMessages: number; coveredMessages: number; tokensBefore: number; tokensAfter: number }
  /** The answer of the input pipeline to a slash command (`/help`, an unknown command, ...). */
  | { type: "notice"; command: string; text: string; isError: boolean };

export type ChatEventType = ChatEventBody["type"];
