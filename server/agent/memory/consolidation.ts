import type { LlmProvider } from "../llm/llm-provider";
import type { ChatMessage, LlmRequest } from "../llm/messages";

/** The first words of the summary request's instructions (the demo model recognizes the request by them). */
export const CONSOLIDATION_PROMPT_HEAD = "Summarize the conversation below";

const CONSOLIDATION_PROMPT = `${CONSOLIDATION_PROMPT_HEAD} so that an assistant can continue it without the original messages. \
Keep what the user asked for and decided, facts and names established, work done (tool calls and what they returned, in short), \
open tasks and the current goal. Write plain prose or short bullet points, at most about 400 words. Do not answer the conversation.`;

/** A tool result longer than this is cut in the summary request: the summary needs its gist, not all of it. */
const TOOL_RESULT_CHARS = 2_000;

export interface ConsolidateArgs {
  provider: LlmProvider;
  /** The agent's model, if it names one. */
  model?: string;
  previous: string | null;
  messages: readonly ChatMessage[];
  /** Characters of transcript the request may hold (the budget's worth): older parts are cut first. */
  maxChars: number;
  signal: AbortSignal;
}

/**
 * One model call asking for a summary of the messages a cleanup takes out of the context (with the
 * previous summary, so a summary always covers the whole pruned part). Throws when the call fails or
 * answers nothing; the caller then prunes instead.
 */
export async function consolidate(args: ConsolidateArgs): Promise<string> {
  const request: LlmRequest = {
    messages: [
      { role: "system", content: CONSOLIDATION_PROMPT },
      { role: "user", content: transcript(args) },
    ],
    tools: [],
    ...(args.model ? { model: args.model } : {}),
    maxTokens: 1_024,
  };
  let text = "";
  for await (const event of args.provider.stream(request, { signal: args.signal })) {
    if (event.type === "text_delta") text += event.text;
    else if (event.type === "stream_failure") throw new Error(`the summary call failed: ${event.error.message}`);
  }
  if (!text.trim()) throw new Error("the summary call answered nothing");
  return text.trim();
}

/** The pruned messages as one text, the previous summary first; the oldest part is cut to fit `maxChars`. */
export function transcript(args: Pick<ConsolidateArgs, "previous" | "messages" | "maxChars">): string {
  const lines = args.messages.map(renderMessage);
  let body = lines.join("\n\n");
  if (body.length > args.maxChars) body = `[… earlier part cut …]\n${body.slice(body.length - args.maxChars)}`;
  const previous = args.previous ? `<previous-summary>\n${args.previous}\n</previous-summary>\n\n` : "";
  return `${previous}<conversation>\n${body}\n</conversation>`;
}

function renderMessage(m: ChatMessage): string {
  switch (m.role) {
    case "system":
      return `[system] ${m.content}`;
    case "user":
      return `[user] ${m.content}`;
    case "assistant": {
      const calls = (m.toolCalls ?? []).map((c) => `\n[assistant called ${c.name}(${c.arguments})]`).join("");
      return `[assistant] ${m.content}${calls}`;
    }
    case "tool": {
      const content = m.content.length > TOOL_RESULT_CHARS ? `${m.content.slice(0, TOOL_RESULT_CHARS)} …[cut]` : m.content;
      return `[${m.name} ${m.isError ? "failed" : "returned"}] ${content}`;
    }
  }
}
