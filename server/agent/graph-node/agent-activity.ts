import type { TokenUsage } from "../llm/token-usage";
import type { AgentEvent } from "../react/agent-events";

/** Longest text an activity keeps of a message, tool argument set or result (the log is not a transcript store). */
export const ACTIVITY_TEXT_LIMIT = 4_000;

/**
 * What an agent node's turn leaves in the instance's event log (as `node_activity` events): coarse, a
 * few per model call, so the timeline, a reload and the replay show the turn. Streamed text is not here:
 * it goes live only (AgentLiveDelta), and the whole message lands as one `message` once the call ends.
 */
export type AgentActivity =
  | { kind: "turn_started"; turnId: string; summary: string; input: string; resumed: boolean }
  /** A recovery after a crash resumed the turn from its checkpoint at the end of iteration `step`. */
  | { kind: "turn_resumed"; turnId: string; summary: string; step: number; resumes: number }
  | { kind: "message"; turnId: string; attempt: number; iteration: number; summary: string; text: string; reasoning?: string }
  | { kind: "tool_call"; turnId: string; attempt: number; iteration: number; summary: string; callId: string; tool: string; args: unknown }
  | { kind: "tool_result"; turnId: string; summary: string; callId: string; tool: string; content: string; isError: boolean; overflowPath?: string }
  /** One model call's tokens (`usage.estimated`: a stopped call's estimate); `model` is the model the node asked for (where known), to price it. */
  | { kind: "usage"; turnId: string; attempt: number; iteration: number; summary: string; usage: TokenUsage; model?: string }
  /**
   * Memory cleanup took the node's older messages out of its model's context: `text` (clipped) stands for
   * the first `coveredMessages` of its conversation from here on (`pruned`: a marker, no model summary).
   */
  | { kind: "context_summarized"; turnId: string; summary: string; text: string; mode: "consolidated" | "pruned"; prunedMessages: number; coveredMessages: number; tokensBefore: number; tokensAfter: number }
  | { kind: "approval_requested"; turnId: string; summary: string; transactionId: string; tool: string; args: unknown }
  | { kind: "approval_decided"; turnId: string; summary: string; transactionId: string; approved: boolean; reason?: string; by?: string }
  | { kind: "turn_ended"; turnId: string; summary: string; stopReason: string; attempts: number; iterations: number; usage: TokenUsage; error?: string };

export type AgentActivityKind = AgentActivity["kind"];

/**
 * A piece of streamed text, for live display only (never persisted); `end` (no text) says the model
 * call's text so far is now a `message` activity, or the turn is over.
 */
export interface AgentLiveDelta {
  turnId: string;
  attempt: number;
  iteration: number;
  channel: "text" | "reasoning" | "end";
  text: string;
}

/**
 * Folds one turn's AgentEvents into coarse activities and live deltas. One per turn execution; not
 * thread-safe, not reusable. `activity` must not throw (it logs); `delta` is fire-and-forget.
 */
export class AgentActivityReporter {
  private text = "";
  private reasoning = "";
  private usage: { usage: TokenUsage; attempt: number; iteration: number } | null = null;
  private at = { attempt: 0, iteration: 0 };
  /** A turn_ended was reported (a controlled exit — a cancel — ends the turn without turn_completed). */
  ended = false;

  constructor(
    private readonly sinks: { activity: (a: AgentActivity) => void; delta?: (d: AgentLiveDelta) => void },
    /** The model the node's config names (none: the app's configured one), written on each `usage`. */
    private readonly model?: string | null,
  ) {}

  onEvent(event: AgentEvent): void {
    switch (event.type) {
      case "llm_event":
        this.llmEvent(event);
        return;
      case "tool_result": {
        const r = event.result;
        this.sinks.activity({
          kind: "tool_result",
          turnId: event.turnId,
          summary: `${r.name}${r.isError ? " failed" : ""}: ${clip(r.content, 120)}`,
          callId: r.callId,
          tool: r.name,
          content: clip(r.content),
          isError: r.isError,
          ...(r.overflowPath ? { overflowPath: r.overflowPath } : {}),
        });
        return;
      }
      case "context_summarized": {
        const { text, mode, prunedMessages, coveredMessages, tokensBefore, tokensAfter } = event.summary;
        const how = mode === "consolidated" ? "summarized" : "dropped (no summary)";
        this.sinks.activity({
          kind: "context_summarized",
          turnId: event.turnId,
          summary: `context ${how}: ${prunedMessages} older message${prunedMessages === 1 ? "" : "s"}, ~${tokensBefore} → ~${tokensAfter} tokens`,
          text: clip(text),
          mode,
          prunedMessages,
          coveredMessages,
          tokensBefore,
          tokensAfter,
        });
        return;
      }
      case "approval_requested": {
        const { call, id } = event.transaction;
        this.sinks.activity({ kind: "approval_requested", turnId: event.turnId, summary: `waits for approval of ${call.name}`, transactionId: id, tool: call.name, args: call.arguments });
        return;
      }
      case "turn_completed": {
        this.ended = true;
        const r = event.result;
        this.sinks.activity({
          kind: "turn_ended",
          turnId: event.turnId,
          summary: `${r.stopReason} after ${r.turnAttempts} attempt(s), ${r.iterations} iteration(s)`,
          stopReason: r.stopReason,
          attempts: r.turnAttempts,
          iterations: r.iterations,
          usage: r.usage,
          ...(r.error ? { error: r.error.message } : {}),
        });
        return;
      }
    }
  }

  private llmEvent(event: Extract<AgentEvent, { type: "llm_event" }>): void {
    const attempt = event.attempt ?? 0;
    const iteration = event.iteration ?? 0;
    this.at = { attempt, iteration };
    const e = event.event;
    switch (e.type) {
      case "text_delta":
        this.text += e.text;
        this.sinks.delta?.({ turnId: event.turnId, attempt, iteration, channel: "text", text: e.text });
        return;
      case "reasoning_delta":
        this.reasoning += e.text;
        this.sinks.delta?.({ turnId: event.turnId, attempt, iteration, channel: "reasoning", text: e.text });
        return;
      case "tool_call_complete":
        this.flushMessage(event.turnId, attempt, iteration);
        this.sinks.activity({ kind: "tool_call", turnId: event.turnId, attempt, iteration, summary: `${e.call.name}(${clip(argumentsText(e.call.arguments), 100)})`, callId: e.call.id, tool: e.call.name, args: e.call.arguments });
        return;
      case "usage_snapshot":
        this.usage = { usage: e.usage, attempt, iteration };
        return;
      case "finish":
      case "stream_failure":
        // A cancelled or failed stream keeps what it streamed: that text is part of the transcript too.
        this.flushMessage(event.turnId, attempt, iteration);
        this.flushUsage(event.turnId);
        return;
    }
  }

  /** The model call's tokens, once it ended (a call a stop cut short: its estimate, at `flush`). */
  private flushUsage(turnId: string): void {
    if (!this.usage) return;
    const { usage: u, attempt, iteration } = this.usage;
    this.usage = null;
    const summary = u.estimated ? `~${u.inputTokens} in · ~${u.outputTokens} out (estimated)` : `${u.inputTokens} in · ${u.outputTokens} out`;
    this.sinks.activity({ kind: "usage", turnId, attempt, iteration, summary, usage: u, ...(this.model ? { model: this.model } : {}) });
  }

  private flushMessage(turnId: string, attempt: number, iteration: number): void {
    if (!this.text && !this.reasoning) return;
    const text = this.text;
    const reasoning = this.reasoning;
    this.text = "";
    this.reasoning = "";
    this.sinks.activity({ kind: "message", turnId, attempt, iteration, summary: clip(text || reasoning, 120), text: clip(text), ...(reasoning ? { reasoning: clip(reasoning) } : {}) });
    this.endLive(turnId);
  }

  /** Tells live viewers that nothing of this turn is streaming now (also when it ended by an error). */
  endLive(turnId: string): void {
    this.sinks.delta?.({ turnId, attempt: this.at.attempt, iteration: this.at.iteration, channel: "end", text: "" });
  }

  /**
   * Reports what streamed and was not yet reported as a message (a turn cut off mid-stream, e.g. by a
   * pause), and the cut call's tokens (the client's estimate: the provider's usage comes last).
   */
  flush(turnId: string): void {
    this.flushMessage(turnId, this.at.attempt, this.at.iteration);
    this.flushUsage(turnId);
  }
}

/** A call's arguments as the model wrote them: their JSON text as it is (stringified again it reads `"{\"a\"…`). */
function argumentsText(args: unknown): string {
  return typeof args === "string" ? args : (JSON.stringify(args) ?? "");
}

export function clip(text: string, max = ACTIVITY_TEXT_LIMIT): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
