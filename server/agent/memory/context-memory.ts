import { describeError, isAbortError } from "../errors";
import type { LlmProvider } from "../llm/llm-provider";
import type { ChatMessage, ToolSpec } from "../llm/messages";
import { consoleLogger, type AgentLogger } from "../logger";
import { TurnCustomKey } from "../state/turn-custom";
import type { TurnState } from "../state/turn-state";
import { planCut } from "./cleanup-plan";
import { consolidate } from "./consolidation";
import { historyDigest, parseSummary, summaryFor, type ContextSummary, type ContextSummaryStore } from "./context-summary";
import type { MemoryConfig } from "./memory-config";
import { MemoryHookRunner } from "./memory-hook-runner";
import { estimateMessagesTokens, estimateToolsTokens } from "../llm/token-estimate";

/** Tokens kept free for the summary when planning a cut (a summary is asked for in about 400 words), at most a quarter of the budget. */
const SUMMARY_RESERVE_TOKENS = 700;

/** The summary message's tag: the model reads it as the conversation so far, the demo model too. */
export const SUMMARY_TAG = "conversation-summary";

interface MemoryTurnState {
  /** Loaded from the store once per turn (a resumed leg loads it again). */
  summary: ContextSummary | null;
  /** The last request this turn sent: how much history it held, and from which summary. */
  lastCall?: { historyLength: number; covered: number };
}

const MEMORY_STATE = new TurnCustomKey<MemoryTurnState>("memory.context");

export interface ContextMemoryOptions {
  config: MemoryConfig;
  /** Where summaries are kept (the chat store); none: a summary lives for its turn only. */
  store?: ContextSummaryStore;
  /** The model that writes summaries: the agent's own. */
  provider: LlmProvider;
  model?: string;
  hooks?: MemoryHookRunner;
  logger?: AgentLogger;
  now?: () => number;
}

export interface AssembleArgs {
  turn: TurnState;
  system: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  signal: AbortSignal;
  /** Told when a cleanup stored a summary (the chat shows where earlier messages were summarized). */
  onSummary?: (summary: ContextSummary) => void;
}

/**
 * Context assembly for one agent: before each model call, the request's messages are the system prompt,
 * the session's summary (if a cleanup wrote one) and the history after it. Over the token budget, a
 * cleanup moves the line: older messages go into a new summary (one model call, or a prune marker), which
 * is stored with the session before the request goes out, so later turns and a restart start from it.
 * The history itself is never shortened. Memory hooks (memory-hook.ts) see each step.
 */
export class ContextMemory {
  readonly hooks: MemoryHookRunner;
  private readonly now: () => number;
  private readonly logger: AgentLogger;

  constructor(private readonly options: ContextMemoryOptions) {
    this.hooks = options.hooks ?? new MemoryHookRunner(options.logger);
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? consoleLogger;
  }

  get config(): MemoryConfig {
    return this.options.config;
  }

  async assemble(args: AssembleArgs): Promise<ChatMessage[]> {
    const { turn } = args;
    const state = await this.state(turn);
    const fixed = estimateMessagesTokens(args.system) + estimateToolsTokens(args.tools);
    let context = this.context(args.system, state.summary, turn.messages);
    const tokens = this.estimate({ turn, state, context, fixed });
    let summarized = state.summary !== null;
    if (this.config.enabled && tokens > this.config.max_context_tokens) {
      const cleaned = await this.cleanup({ ...args, state, fixed, tokens });
      if (cleaned) {
        context = cleaned;
        summarized = true;
      }
    }
    state.lastCall = { historyLength: turn.messages.length, covered: state.summary?.coveredMessages ?? 0 };
    await this.hooks.dispatch("CONTEXT_ASSEMBLED", turn, { messages: context, tokens: fixed + estimateMessagesTokens(context.slice(args.system.length)), summarized });
    return context;
  }

  /** The request's tokens: the estimate, or the provider's count of the previous call plus what came since, whichever is more. */
  private estimate(args: { turn: TurnState; state: MemoryTurnState; context: ChatMessage[]; fixed: number }): number {
    const estimated = args.fixed + estimateMessagesTokens(args.context);
    const last = args.state.lastCall;
    // Only the provider's own count corrects the estimate; an estimate of the last call (it reported none) does not.
    const usage = args.turn.lastResponse?.usage;
    const reported = usage && !usage.estimated ? usage.inputTokens : undefined;
    if (!last || !reported || last.covered !== (args.state.summary?.coveredMessages ?? 0)) return estimated;
    return Math.max(estimated, reported + estimateMessagesTokens(args.turn.messages.slice(last.historyLength)));
  }

  private async cleanup(args: AssembleArgs & { state: MemoryTurnState; fixed: number; tokens: number }): Promise<ChatMessage[] | null> {
    const { turn, state } = args;
    const covered = state.summary?.coveredMessages ?? 0;
    const budget = this.config.max_context_tokens;
    const cut = planCut({ messages: turn.messages, covered, fixedTokens: args.fixed + Math.min(SUMMARY_RESERVE_TOKENS, Math.floor(budget / 4)), budget, keepRecent: this.config.keep_recent_messages });
    if (cut === null) return null;
    const startedAt = this.now();
    await this.hooks.dispatch("CLEANUP_TRIGGERED", turn, { tokens: args.tokens, budget, cut, messages: turn.messages.length, at: startedAt });
    const { text, mode } = await this.summaryText({ turn, previous: state.summary, from: covered, cut, signal: args.signal });
    const draft: ContextSummary = { text, coveredMessages: cut, digest: historyDigest(turn.messages, cut), prunedMessages: cut - covered, tokensBefore: args.tokens, tokensAfter: 0, mode, at: this.now() };
    const context = this.context(args.system, draft, turn.messages);
    const summary = { ...draft, tokensAfter: args.fixed + estimateMessagesTokens(context.slice(args.system.length)) };
    await this.options.store?.saveSummary(turn.sessionId, summary);
    state.summary = summary;
    args.onSummary?.(summary);
    await this.hooks.dispatch("CLEANUP_FINISHED", turn, { summary, context, startedAt, at: this.now() });
    return context;
  }

  /** The model's summary of messages [from, cut) with the previous one; a prune marker when consolidation is off or fails. */
  private async summaryText(args: { turn: TurnState; previous: ContextSummary | null; from: number; cut: number; signal: AbortSignal }): Promise<{ text: string; mode: ContextSummary["mode"] }> {
    const pruned = args.turn.messages.slice(args.from, args.cut);
    if (this.config.consolidate) {
      const startedAt = this.now();
      try {
        const text = await consolidate({
          provider: this.options.provider,
          model: this.options.model,
          previous: args.previous?.text ?? null,
          messages: pruned,
          maxChars: this.config.max_context_tokens * 3,
          signal: args.signal,
        });
        await this.hooks.dispatch("CONSOLIDATION_FINISHED", args.turn, { text, error: null, startedAt, at: this.now() });
        return { text, mode: "consolidated" };
      } catch (e) {
        if (isAbortError(e) || args.signal.aborted) throw e;
        this.logger.warn(`the summary call failed, pruning instead: ${describeError(e)}`, { turnId: args.turn.turnId });
        await this.hooks.dispatch("CONSOLIDATION_FINISHED", args.turn, { text: null, error: describeError(e), startedAt, at: this.now() });
      }
    }
    return { text: pruneMarker(args.previous, args.cut), mode: "pruned" };
  }

  private context(system: readonly ChatMessage[], summary: ContextSummary | null, messages: readonly ChatMessage[]): ChatMessage[] {
    if (!summary) return [...system, ...messages];
    return [...system, summaryMessage(summary), ...messages.slice(summary.coveredMessages)];
  }

  private async state(turn: TurnState): Promise<MemoryTurnState> {
    const kept = turn.custom.get(MEMORY_STATE);
    if (kept) {
      kept.summary = summaryFor(kept.summary, turn.messages);
      return kept;
    }
    const stored = this.options.store ? parseSummary(await this.options.store.loadSummary(turn.sessionId)) : null;
    const state: MemoryTurnState = { summary: summaryFor(stored, turn.messages) };
    turn.custom.set(MEMORY_STATE, state);
    return state;
  }
}

/** The summary as the model reads it: a user message, as every provider accepts one here. */
export function summaryMessage(summary: ContextSummary): ChatMessage {
  const head = `The first ${summary.coveredMessages} messages of this conversation are summarized here; the conversation goes on after it.`;
  return { role: "user", content: `<${SUMMARY_TAG}>\n${head}\n\n${summary.text}\n</${SUMMARY_TAG}>` };
}

function pruneMarker(previous: ContextSummary | null, cut: number): string {
  const marker = `[The ${cut} earliest messages were removed to keep the conversation within the model's context; what they said beyond this note is not available.]`;
  return previous && previous.mode === "consolidated" ? `${previous.text}\n\n${marker}` : marker;
}
