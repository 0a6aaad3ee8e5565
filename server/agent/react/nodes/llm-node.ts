import type { NodeContext } from "../../../graph/context";
import { Node } from "../../../graph/node";
import { drainControlChannel } from "../../control/drain-control-channel";
import type { ChatMessage, LlmRequest } from "../../llm/messages";
import type { LlmCallOutcome } from "../../llm/response-assembler";
import { addUsage } from "../../llm/token-usage";
import type { TurnState } from "../../state/turn-state";
import { ReactNode } from "../react-node-names";
import { routeFailureToAfter } from "./route-failure";
import type { ReactGraphState } from "../react-graph-state";
import { reactRuntime, type ReactGraphRuntime } from "../react-graph-runtime";

/**
 * One ReAct iteration's model call. Checks the business iteration limit first (reached → AFTER with
 * MAX_ITERATIONS), dispatches BEFORE_ITERATION (loop detection may end the turn here), drains the
 * channel, then calls the model inside the ITERATION interceptor scope. Tool calls → TOOL; anything else
 * (a final answer, a stream failure, an unexpected failure) → AFTER.
 */
export class LlmNode extends Node<ReactGraphState> {
  constructor() {
    super(ReactNode.LLM, { description: "call the model" });
  }

  execute(ctx: NodeContext<ReactGraphState>): Promise<void> {
    return routeFailureToAfter(ctx, () => this.iterate(ctx));
  }

  private async iterate(ctx: NodeContext<ReactGraphState>): Promise<void> {
    const rt = reactRuntime(ctx);
    const turn = ctx.state.turn;
    if (turn.iteration >= turn.maxIterations) {
      turn.iterationLimitHit = true;
      ctx.deliver(null, ReactNode.AFTER);
      return;
    }
    turn.iteration += 1;
    await rt.dispatchHook("BEFORE_ITERATION", turn, { iteration: turn.iteration });
    drainControlChannel(rt.deps.channel, turn);
    let outcome: LlmCallOutcome | undefined;
    await rt.deps.interceptors.runIteration({
      turn,
      iteration: turn.iteration,
      run: async () => {
        outcome = await callModel(rt, turn);
      },
    });
    ctx.deliver(null, await settle(rt, turn, outcome!));
  }
}

/** The request: system prompt and history, or what context memory assembles from them within its budget. */
async function buildRequest(rt: ReactGraphRuntime, turn: TurnState): Promise<LlmRequest> {
  const system: ChatMessage[] = rt.deps.systemPrompt ? [{ role: "system", content: rt.deps.systemPrompt }] : [];
  const tools = rt.deps.registry.specs();
  const context = rt.deps.context;
  const messages = context
    ? await context.assemble({ turn, system, tools, signal: rt.signal, onSummary: (summary) => rt.emit({ type: "context_summarized", turnId: turn.turnId, summary }) })
    : [...system, ...turn.messages];
  return { ...rt.deps.request, messages, tools };
}

async function callModel(rt: ReactGraphRuntime, turn: TurnState): Promise<LlmCallOutcome> {
  const request = await buildRequest(rt, turn);
  await rt.dispatchHook("BEFORE_LLM", turn, { request });
  return rt.deps.llm.call({
    turn,
    request,
    signal: rt.signal,
    onEvent: (event) => rt.emit({ type: "llm_event", turnId: turn.turnId, event, attempt: turn.turnAttempt, iteration: turn.iteration }),
  });
}

/** Records the outcome in the turn and picks the next node. */
async function settle(rt: ReactGraphRuntime, turn: TurnState, outcome: LlmCallOutcome): Promise<string> {
  if (!outcome.ok) {
    turn.usage = addUsage(turn.usage, outcome.usage);
    turn.failure = outcome.failure.error;
    await rt.dispatchHook("AFTER_LLM_RESPONSE", turn, { response: null, failure: outcome.failure, usage: outcome.usage });
    return ReactNode.AFTER;
  }
  const { response } = outcome;
  turn.usage = addUsage(turn.usage, response.usage);
  turn.lastResponse = response;
  turn.messages.push({
    role: "assistant",
    content: response.content,
    ...(response.reasoning ? { reasoning: response.reasoning } : {}),
    ...(response.toolCalls.length ? { toolCalls: response.toolCalls } : {}),
  });
  await rt.dispatchHook("AFTER_LLM_RESPONSE", turn, { response });
  if (response.toolCalls.length > 0) {
    turn.pendingToolCalls = [...response.toolCalls];
    turn.toolBatchCalls = [...response.toolCalls];
    turn.toolBatchResults = [];
    return ReactNode.TOOL;
  }
  await rt.dispatchHook("AFTER_ITERATION", turn, { iteration: turn.iteration });
  return ReactNode.AFTER;
}
