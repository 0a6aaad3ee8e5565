import { ExtensionVetoError, isAbortError } from "../errors";
import type { HookContext } from "../hook/hook-context";
import {
  Hook,
  type AfterApprovalHook,
  type AfterGraphHook,
  type AfterIterationHook,
  type AfterLlmResponseHook,
  type AfterTurnHook,
  type BeforeGraphHook,
  type BeforeIterationHook,
  type BeforeLlmHook,
  type EndNodeTurnHook,
} from "../hook/hook-contracts";
import type { LlmResponse } from "../llm/llm-response";
import { StopReason } from "../stop-reason";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import type { TurnState } from "../state/turn-state";
import { ExtensionContext } from "./extension-context";
import type { ExtensionInvoker } from "./extension-invoker";
import { LAST_LLM_PARAMS, runPromptPipeline } from "./prompt-pipeline";
import { turnExtensionContext } from "./turn-extension-context";
import { stringOr, vetoReason } from "./value-guards";

/** Runs before other hooks at each point, so they observe the prompt and response extensions shaped. */
export const EXTENSION_HOOK_PRIORITY = -100;

/**
 * The agent Hook that invokes the extension points at the agent's lifecycle points (the mapping table is
 * in server/agent/README.md, "Extensions"). Tool-call points live in ExtensionToolInterceptor and the
 * per-chunk point in ExtensionStreamInterceptor, because the agent has no per-call or per-chunk hook.
 * Holds only the invoker: per-turn state goes in `turn.custom`, as for every shared hook.
 */
export class ExtensionHook
  extends Hook
  implements
    BeforeGraphHook,
    BeforeIterationHook,
    BeforeLlmHook,
    AfterLlmResponseHook,
    AfterIterationHook,
    AfterTurnHook,
    EndNodeTurnHook,
    AfterGraphHook,
    AfterApprovalHook
{
  constructor(private readonly invoker: ExtensionInvoker) {
    super();
  }

  get name(): string {
    return "extensions";
  }

  async beforeGraph(ctx: HookContext<"BEFORE_GRAPH">): Promise<void> {
    if (ctx.resumed) return; // an approval resume carries no new message
    // The message is not in the turn's messages yet: ctx.message is it, as at every later point.
    const { sessionId, turnId } = ctx.turn;
    await this.invoker.invoke("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ sessionId, turnId, message: ctx.input, data: { message: ctx.input } }));
  }

  /** BEFORE_CONTINUATION: a veto stops the loop before this iteration's model call. */
  async beforeIteration(ctx: HookContext<"BEFORE_ITERATION">): Promise<void> {
    if (!this.invoker.handles("BEFORE_CONTINUATION")) return;
    const extCtx = turnExtensionContext(ctx.turn, "BEFORE_CONTINUATION", { prompt: ctx.turn.messages, context: { iteration: ctx.iteration } });
    if ((await this.invoker.invoke("BEFORE_CONTINUATION", extCtx)) === false) {
      throw new ExtensionVetoError({ point: "BEFORE_CONTINUATION", extensionName: extCtx.cancelledBy, reason: vetoReason(extCtx) });
    }
  }

  beforeLlm(ctx: HookContext<"BEFORE_LLM">): Promise<void> {
    return runPromptPipeline(this.invoker, ctx.turn, ctx.request);
  }

  async afterLlmResponse(ctx: HookContext<"AFTER_LLM_RESPONSE">): Promise<void> {
    const response = ctx.response;
    if (!response || !this.invoker.handles("AFTER_LLM_RESPONSE")) return;
    const llmParams = ctx.turn.custom.get(LAST_LLM_PARAMS) ?? { tools: [] };
    const data = { response: response.content, llmParams, usage: response.usage };
    const value = await this.invoker.invoke("AFTER_LLM_RESPONSE", turnExtensionContext(ctx.turn, "AFTER_LLM_RESPONSE", data));
    rewriteResponse(ctx.turn, response, stringOr(value, response.content));
  }

  async afterIteration(ctx: HookContext<"AFTER_ITERATION">): Promise<void> {
    const response = ctx.turn.lastResponse;
    if (!response || !this.invoker.handles("AFTER_CONTINUATION")) return;
    const value = await this.invoker.invoke("AFTER_CONTINUATION", turnExtensionContext(ctx.turn, "AFTER_CONTINUATION", { response: response.content }));
    rewriteResponse(ctx.turn, response, stringOr(value, response.content));
  }

  /** LOOP_COMPLETE on the attempt's result (AFTER_TURN lets hooks rewrite it); CRITICAL_ERROR if it failed. */
  async afterTurn(ctx: HookContext<"AFTER_TURN">): Promise<void> {
    const { result } = ctx;
    if (result.stopReason === StopReason.ERROR) {
      await this.invoker.invoke("CRITICAL_ERROR", turnExtensionContext(ctx.turn, "CRITICAL_ERROR", { error: result.error }));
    }
    const value = await this.invoker.invoke("LOOP_COMPLETE", turnExtensionContext(ctx.turn, "LOOP_COMPLETE", { finalResponse: result.content }));
    result.content = stringOr(value, result.content);
  }

  /** BEFORE_RESPONSE_SEND: END emits the turn's result right after this point. */
  async endNodeTurn(ctx: HookContext<"END_NODE_TURN">): Promise<void> {
    const { result } = ctx;
    const value = await this.invoker.invoke("BEFORE_RESPONSE_SEND", turnExtensionContext(ctx.turn, "BEFORE_RESPONSE_SEND", { response: result.content }));
    result.content = stringOr(value, result.content);
  }

  /**
   * AFTER_RESPONSE_SEND once run() has its result, or is rejecting because its signal aborted it: an abort
   * is a Stop by another road (a new message, a deleted chat, a stopping server), not a failure, so the
   * turn ends where a Stop's does. CRITICAL_ERROR when run() is failing instead.
   */
  async afterGraph(ctx: HookContext<"AFTER_GRAPH">): Promise<void> {
    if (ctx.error !== undefined && !isAbortError(ctx.error)) {
      await this.invoker.invoke("CRITICAL_ERROR", turnExtensionContext(ctx.turn, "CRITICAL_ERROR", { error: ctx.error }));
    } else if (ctx.result || ctx.error !== undefined) {
      const cutUsage = ctx.turn.custom.get(TurnCustomKeys.CUT_CALL_USAGE);
      await this.invoker.invoke("AFTER_RESPONSE_SEND", turnExtensionContext(ctx.turn, "AFTER_RESPONSE_SEND", cutUsage ? { cutUsage } : {}));
    }
  }

  async afterApproval(ctx: HookContext<"AFTER_APPROVAL">): Promise<void> {
    const data = { transaction: ctx.transaction, decision: ctx.decision };
    await this.invoker.invoke("APPROVAL_RECEIVED", turnExtensionContext(ctx.turn, "APPROVAL_RECEIVED", data));
  }
}

/**
 * Applies a rewritten response to both places that hold it: the response (the turn's result reads
 * `lastResponse`) and the assistant message already appended to the history, which is the last one.
 */
function rewriteResponse(turn: TurnState, response: LlmResponse, content: string): void {
  if (content === response.content) return;
  response.content = content;
  for (let i = turn.messages.length - 1; i >= 0; i--) {
    const message = turn.messages[i];
    if (message.role !== "assistant") continue;
    turn.messages[i] = { ...message, content }; // a new object: earlier request snapshots keep theirs
    return;
  }
}

