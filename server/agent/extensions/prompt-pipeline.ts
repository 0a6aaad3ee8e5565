import { ExtensionVetoError } from "../errors";
import type { ChatMessage, LlmRequest } from "../llm/messages";
import { TurnCustomKey } from "../state/turn-custom";
import type { TurnState } from "../state/turn-state";
import type { LlmParams } from "./extension-data";
import type { ExtensionInvoker } from "./extension-invoker";
import { turnExtensionContext } from "./turn-extension-context";
import { messagesOr, stringOr, vetoReason } from "./value-guards";

/** The request settings of the turn's latest model call, for AFTER_LLM_RESPONSE (hooks are shared: no fields). */
export const LAST_LLM_PARAMS = new TurnCustomKey<LlmParams>("extensions.llm_params");

/**
 * The prompt points, run at the agent's BEFORE_LLM on the request the model is about to receive, in the
 * spec's order: BEFORE_PROMPT_BUILD → AFTER_PROMPT_BUILD (the conversation) → SYSTEM_PROMPT_READY →
 * FULL_PROMPT_READY (system + conversation) → BEFORE_LLM_CALL. Modex builds the prompt afresh for every
 * model call of the ReAct loop, so these fire once per call, not once per message.
 *
 * The edited messages replace `request.messages` — what this call sends — never the turn's history, and
 * extensions get copies (each message and its tool calls), so editing one in place cannot rewrite the
 * conversation either. A copy handed back unchanged is not validated again (most calls: this runs per
 * model call on the whole history).
 * A veto at BEFORE_LLM_CALL raises ExtensionVetoError: the provider is never called and the turn ends.
 */
export async function runPromptPipeline(invoker: ExtensionInvoker, turn: TurnState, request: LlmRequest): Promise<void> {
  const llmParams = paramsOf(request);
  turn.custom.set(LAST_LLM_PARAMS, llmParams);
  const context = { iteration: turn.iteration };
  const [system, conversation] = splitSystem(request.messages);

  if (invoker.handles("BEFORE_PROMPT_BUILD")) {
    await invoker.invoke("BEFORE_PROMPT_BUILD", turnExtensionContext(turn, "BEFORE_PROMPT_BUILD", { context: { ...context, messages: conversation } }));
  }
  let prompt = conversation;
  if (invoker.handles("AFTER_PROMPT_BUILD")) {
    const copy = copyMessages(prompt);
    prompt = messagesOr(await invoker.invoke("AFTER_PROMPT_BUILD", turnExtensionContext(turn, "AFTER_PROMPT_BUILD", { prompt: copy })), prompt, copy);
  }
  let systemPrompt = system;
  if (invoker.handles("SYSTEM_PROMPT_READY")) {
    const session = { sessionId: turn.sessionId, turnId: turn.turnId };
    systemPrompt = stringOr(await invoker.invoke("SYSTEM_PROMPT_READY", turnExtensionContext(turn, "SYSTEM_PROMPT_READY", { systemPrompt, session })), system);
  }
  let full: ChatMessage[] = systemPrompt ? [{ role: "system", content: systemPrompt }, ...prompt] : prompt;
  if (invoker.handles("FULL_PROMPT_READY")) {
    const copy = copyMessages(full);
    full = messagesOr(await invoker.invoke("FULL_PROMPT_READY", turnExtensionContext(turn, "FULL_PROMPT_READY", { prompt: copy, llmParams, context })), full, copy);
  }
  request.messages = full;
  await vetoCheck(invoker, turn, { prompt: full, llmParams });
}

async function vetoCheck(invoker: ExtensionInvoker, turn: TurnState, data: { prompt: ChatMessage[]; llmParams: LlmParams }): Promise<void> {
  if (!invoker.handles("BEFORE_LLM_CALL")) return;
  const ctx = turnExtensionContext(turn, "BEFORE_LLM_CALL", { prompt: copyMessages(data.prompt), llmParams: data.llmParams });
  if ((await invoker.invoke("BEFORE_LLM_CALL", ctx)) === false) {
    throw new ExtensionVetoError({ point: "BEFORE_LLM_CALL", extensionName: ctx.cancelledBy, reason: vetoReason(ctx) });
  }
}

function splitSystem(messages: ChatMessage[]): [string, ChatMessage[]] {
  const first = messages[0];
  if (first?.role === "system") return [first.content, messages.slice(1)];
  return ["", messages];
}

function paramsOf(request: LlmRequest): LlmParams {
  const { messages: _messages, ...params } = request;
  return params;
}

/** A copy an extension may edit in place: a new list of new messages (their tool calls copied too). */
function copyMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => (m.role === "assistant" && m.toolCalls ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c })) } : { ...m }) as ChatMessage);
}
