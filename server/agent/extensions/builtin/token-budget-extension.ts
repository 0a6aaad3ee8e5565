import { Extension, type ExtensionContextFor } from "../extension";

export interface TokenBudgetOptions {
  /** Tokens (input + output) one turn may use; no limit when unset. */
  perTurn?: number;
  /** Tokens one instance may use: a graph run (all its agent nodes) or a chat session. */
  perInstance?: number;
}

/**
 * Instances whose totals are kept. A graph run never ends a session (SESSION_DESTROY is a chat's), so
 * without a bound every run ever made would keep its entry: the least recently active is dropped first.
 */
export const MAX_TRACKED_INSTANCES = 10_000;

/**
 * Vetoes a model call (BEFORE_LLM_CALL) once the turn or the instance has used its token budget, as the
 * model reported it (AFTER_LLM_RESPONSE). The turn ends with stop reason policy_violation and says why.
 * A graph node's session id is `<instance>:<node>`, so its instance is the part before the colon.
 */
export class TokenBudgetExtension extends Extension {
  readonly name = "token_budget";
  override priority = 20;
  private readonly byTurn = new Map<string, number>();
  private readonly byInstance = new Map<string, number>();
  private vetoed = 0;

  constructor(private readonly options: TokenBudgetOptions) {
    super();
  }

  override counters(): Record<string, number> {
    return { vetoed: this.vetoed };
  }

  override resetCounters(): void {
    this.vetoed = 0;
  }

  /** How many turns and instances it keeps a total for (tests: what ended is let go). */
  tracked(): { turns: number; instances: number } {
    return { turns: this.byTurn.size, instances: this.byInstance.size };
  }

  onBeforeLlmCall(ctx: ExtensionContextFor<"BEFORE_LLM_CALL">): boolean | void {
    const turn = this.byTurn.get(turnKey(ctx)) ?? 0;
    const instance = this.byInstance.get(instanceOf(ctx.sessionId)) ?? 0;
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

  onAfterLlmResponse(ctx: ExtensionContextFor<"AFTER_LLM_RESPONSE">): void {
    const usage = ctx.get("usage");
    const used = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
    add(this.byTurn, turnKey(ctx), used);
    add(this.byInstance, instanceOf(ctx.sessionId), used);
    if (this.byInstance.size > MAX_TRACKED_INSTANCES) this.byInstance.delete(this.byInstance.keys().next().value!);
  }

  onLoopComplete(ctx: ExtensionContextFor<"LOOP_COMPLETE">): void {
    this.byTurn.delete(turnKey(ctx));
  }

  /** The run ended: a turn stopped by a veto or a cancel has no LOOP_COMPLETE, but ends here. */
  onAfterResponseSend(ctx: ExtensionContextFor<"AFTER_RESPONSE_SEND">): void {
    this.byTurn.delete(turnKey(ctx));
  }

  onCriticalError(ctx: ExtensionContextFor<"CRITICAL_ERROR">): void {
    this.byTurn.delete(turnKey(ctx));
  }

  onSessionDestroy(ctx: ExtensionContextFor<"SESSION_DESTROY">): void {
    this.byInstance.delete(instanceOf(ctx.get("sessionId", ctx.sessionId)));
  }
}

const turnKey = (ctx: { sessionId: string; turnId: string | undefined }) => `${ctx.sessionId}/${ctx.turnId ?? ""}`;
const instanceOf = (sessionId: string) => sessionId.split(":")[0];

/** Adds `n` to `key`'s total and makes it the most recent entry (a Map iterates in insertion order). */
function add(map: Map<string, number>, key: string, n: number): void {
  const total = (map.get(key) ?? 0) + n;
  map.delete(key);
  map.set(key, total);
}
