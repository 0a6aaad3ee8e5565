import { helpText, type SessionCommand } from "@/server/agent/input/session-control";
import { newSnowflake } from "@/server/graph/ids";
import type { ChatPublisher } from "./chat-publisher";
import type { ChatSessions } from "./chat-sessions";
import type { ChatStore } from "./chat-store";
import type { ChatDecision, ChatSessionSummary, SendOutcome } from "./chat-types";

/** What the slash commands act through (ChatService's own operations). */
export interface ChatCommandTarget {
  sessions: ChatSessions;
  store: ChatStore;
  publisher: ChatPublisher;
  create(args: { agent?: string }): Promise<ChatSessionSummary>;
  cancel(sessionId: string): Promise<{ cancelled: boolean }>;
  decide(args: { sessionId: string; transactionId: string; approved: boolean; reason?: string }): Promise<ChatDecision>;
}

/**
 * A slash command the input pipeline intercepted before the agent (`/help`, `/new`, `/stop`,
 * `/approve`, `/deny`), run at once whether or not a turn runs; its answer is also a notice in the chat.
 */
export async function runCommand(
  chat: ChatCommandTarget,
  args: { sessionId: string | null; command: SessionCommand; reason: string | null; agent?: string },
): Promise<SendOutcome> {
  const { sessionId, command, reason } = args;
  if (command === "help") return answerCommand(chat, { sessionId, command: "/help", ok: true, message: helpText() });
  if (command === "new") {
    const from = sessionId ? (await chat.sessions.requireRow(sessionId)).agent : (args.agent ?? null);
    const created = await chat.create({ agent: from ?? undefined });
    return { sessionId: created.sessionId, turnId: null, handled: "command", command: "/new", ok: true, message: `started a new chat (${created.sessionId})` };
  }
  if (!sessionId) return answerCommand(chat, { sessionId: null, command: `/${command}`, ok: false, message: `/${command} needs a chat: there is no turn to ${command} in a new one` });
  const live = await chat.sessions.require(sessionId);
  if (command === "stop") {
    const { cancelled } = await chat.cancel(sessionId);
    return answerCommand(chat, { sessionId, command: "/stop", ok: cancelled, message: cancelled ? "stopped the running turn" : "no turn is running in this chat" });
  }
  const awaiting = live.awaiting;
  if (!awaiting) return answerCommand(chat, { sessionId, command: `/${command}`, ok: false, message: `no tool call waits for approval in this chat` });
  await chat.decide({ sessionId, transactionId: awaiting.transaction.id, approved: command === "approve", reason: reason ?? undefined });
  const verb = command === "approve" ? "approved" : "denied";
  return answerCommand(chat, { sessionId, command: `/${command}`, ok: true, message: `${verb} ${awaiting.transaction.call.name}${reason ? `: ${reason}` : ""}` });
}

/** A command's answer: also in the transcript (a notice) when the chat exists. */
export async function answerCommand(
  chat: ChatCommandTarget,
  { sessionId, command, ok, message }: { sessionId: string | null; command: string; ok: boolean; message: string },
): Promise<SendOutcome> {
  if (sessionId) {
    const live = await chat.sessions.require(sessionId);
    chat.publisher.publish(live, live.row.runningTurn ?? `notice-${newSnowflake()}`, { type: "notice", command, text: message, isError: !ok });
    await chat.store.committed();
  }
  return { sessionId: sessionId ?? "", turnId: null, handled: "command", command, ok, message };
}
