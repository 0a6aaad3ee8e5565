import type { ChatMessage } from "@/server/agent/llm/messages";
import { GenAI, Training } from "@/server/agent/trace/genai-attributes";
import type { SpanRecord } from "@/server/agent/trace/span-record";

/** A message in the OpenAI chat fine-tuning format (one JSONL line holds a list of them). */
export type FineTuningMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** One line of the export: the turn's conversation, and where it came from. */
export interface TrainingExample {
  messages: FineTuningMessage[];
  metadata: {
    turnId: string;
    traceId: string;
    sessionId: string;
    source: "chat" | "node";
    agent: string | null;
    startedAt: string;
    /** True when a person chose to include it (else the training_data hook tagged it). */
    chosen: boolean;
  };
}

/** A node's session is `<instance>:<node>`; a chat's id has no colon. */
const isNodeSession = (sessionId: string) => sessionId.includes(":");

/** The [from, to) range of the turn's messages in its session's stored conversation, as the hook recorded it. */
export function messageRange(root: SpanRecord): [number, number] | null {
  const range = root.attributes[Training.MESSAGES];
  if (!Array.isArray(range) || range.length !== 2) return null;
  const [from, to] = range.map(Number);
  return Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from < to ? [from, to] : null;
}

/**
 * The example a turn makes: its system prompt (as the hook recorded it), then its own messages from the
 * stored conversation as they are stored (so secrets masked there stay masked). Null when the turn has no
 * recorded range, or the conversation no longer holds it (a deleted chat or run) or holds no answer.
 */
export function trainingExample(root: SpanRecord, conversation: readonly ChatMessage[]): TrainingExample | null {
  const range = messageRange(root);
  if (!range || conversation.length < range[1]) return null;
  const own = conversation.slice(range[0], range[1]).flatMap(fineTuningMessage);
  if (!own.some((m) => m.role === "user") || own.at(-1)?.role !== "assistant") return null;
  const system = root.attributes[GenAI.SYSTEM_INSTRUCTIONS];
  const agent = root.attributes[GenAI.AGENT_NAME];
  return {
    messages: [...(typeof system === "string" && system !== "" ? [{ role: "system" as const, content: system }] : []), ...own],
    metadata: {
      turnId: root.turnId,
      traceId: root.traceId,
      sessionId: root.sessionId,
      source: isNodeSession(root.sessionId) ? "node" : "chat",
      agent: typeof agent === "string" ? agent : null,
      startedAt: new Date(root.startTime).toISOString(),
      chosen: root.attributes[Training.CHOSEN] === true,
    },
  };
}

/** One stored message in the fine-tuning shape; a stored system message (a memory summary) is left out. */
function fineTuningMessage(m: ChatMessage): FineTuningMessage[] {
  switch (m.role) {
    case "system":
      return [];
    case "user":
      return [{ role: "user", content: m.content }];
    case "tool":
      return [{ role: "tool", tool_call_id: m.toolCallId, content: m.content }];
    case "assistant": {
      const calls = m.toolCalls?.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } }));
      if (calls?.length) return [{ role: "assistant", content: m.content === "" ? null : m.content, tool_calls: calls }];
      return [{ role: "assistant", content: m.content }];
    }
  }
}
