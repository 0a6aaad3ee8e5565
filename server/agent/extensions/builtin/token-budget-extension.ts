import { Extension, type ExtensionContextFor } from "../extension";
import { InMemoryTokenTotals, type TokenTotals } from "./token-totals";

export { MAX_TRACKED_INSTANCES } from "./token-totals";

export interface TokenBudgetOptions {
  /** Tokens (input + output) one turn may use; no limit when unset. */
  perTurn?: number;
  /** Tokens one instance may use: a graph run (all its agent nodes) or a chat session. */
  perInstance?: number;
  /** Where the instances' totals are kept (the app's database: they survive a restart and add up across workers); default this process's memory. */
  totals?: TokenTotals;
}

/**
 * Vetoes a model call (BEFORE_LLM_CALL) once the turn or the instance has used its token budget, as the
 * model reported it (AFTER_LLM_RESPONSE). The turn ends with stop reason policy_violation and says why.
 * A call that ended without the provider's usage counts its estimate (llm/usage-estimate.ts): a stream
 * that finished without usage arrives so at AFTER_LLM_RESPONSE, and a call a stop cut short is added to
 * the instance's total when the run ends (AFTER_RESPONSE_SEND's `cutUsage`), so a stopped turn is not free.
 * A graph node's session id is `<instance>:<node>`, so its instance is the part before the colon.
 * A turn's total is in memory (a turn runs in one process); an instance's is in `totals`.
 */
export class TokenBudgetExtension extends Extension {
  readonly name = "token_budget";
  override priority = 20;
  private readonly byTurn = new Map<string, number>();
  private readonly totals: TokenTotals;
  private vetoed = 0;

  constructor(private readonly options: TokenBudgetOptions) {
    super();
    this.totals = options.totals ?? new InMemoryTokenTotals();
  }

  override counters(): Record<string, number> {
    return { vetoed: this.vetoed };
  }

  override resetCounters(): void {
    this.vetoed = 0;
  }

  /** How many turns and instances it keeps a total for (tests: what ended is let go). */
  tracked(): { turns: number; instances: number | undefined } {
    return { turns: this.byTurn.size, instances: this.totals instanceof InMemoryTokenTotals ? this.totals.size : undefined };
  }

  /** Synchronous when the totals are (memory, SQLite): a model call then waits for no microtask. */
  onBeforeLlmCall(ctx: ExtensionContextFor<"BEFORE_LLM_CALL">): boolean | void | Promise<boolean | void> {
    const turn = this.byTurn.get(turnKey(ctx)) ?? 0;
    // The instance's total is read only when it is limited: a per-turn budget costs no database read.
    if (this.options.perInstance === undefined) return this.check(ctx, turn, 0);
    const instance = this.totals.get(instanceOf(ctx.sessionId));
    return instance instanceof Promise ? instance.then((n) => this.check(ctx, turn, n)) : this.check(ctx, turn, instance);
  }

  private check(ctx: ExtensionContextFor<"BEFORE_LLM_CALL">, turn: number, instance: number): boolean | void {
    const { perTurn, perInstance } = this.options;
    const over =
      perTurn !== undefined && turn >= perTurn
        ? `this turn used ${turn} of its ${perTurn} tokens`
        : perInstance !== undefined && instance >= perInstance
          ? `this instance used ${instance} of its ${perInstance} tokens`
          : null;
    if (!over) return;
    this.vetoed += 1;
    ctx.set("reason", `token budget exceeded: ${over}`);
    return false;
  }

  /** Answers once the instance's total holds this response's tokens (the next call's check reads it). */
  onAfterLlmResponse(ctx: ExtensionContextFor<"AFTER_LLM_RESPONSE">): void | Promise<void> {
    const usage = ctx.get("usage");
    const used = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
    const key = turnKey(ctx);
    this.byTurn.set(key, (this.byTurn.get(key) ?? 0) + used);
    if (this.options.perInstance === undefined || used === 0) return;
    return this.totals.add(instanceOf(ctx.sessionId), used);
  }

  onLoopComplete(ctx: ExtensionContextFor<"LOOP_COMPLETE">): void {
    this.byTurn.delete(turnKey(ctx));
  }

  /**
   * The run ended: a turn stopped by a veto or a cancel has no LOOP_COMPLETE, but ends here. The model
   * call a stop cut short counts toward the instance (the turn is over: its own total is let go).
   */
  onAfterResponseSend(ctx: ExtensionContextFor<"AFTER_RESPONSE_SEND">): void | Promise<void> {
    this.byTurn.delete(turnKey(ctx));
    const cut = ctx.get("cutUsage");
    const used = (cut?.inputTokens ?? 0) + (cut?.outputTokens ?? 0);
    if (this.options.perInstance === undefined || used === 0) return;
    return this.totals.add(instanceOf(ctx.sessionId), used);
  }

  onCriticalError(ctx: ExtensionContextFor<"CRITICAL_ERROR">): void {
    this.byTurn.delete(turnKey(ctx));
  }

  onSessionDestroy(ctx: ExtensionContextFor<"SESSION_DESTROY">): void | Promise<void> {
    return this.totals.forget(instanceOf(ctx.get("sessionId", ctx.sessionId)));
  }
}

const turnKey = (ctx: { sessionId: string; turnId: string | undefined }) => `${ctx.sessionId}/${ctx.turnId ?? ""}`;
const instanceOf = (sessionId: string) => sessionId.split(":")[0];

