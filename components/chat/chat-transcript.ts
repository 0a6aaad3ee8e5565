import type { RouterOutputs } from "@/server/api/root";

export type ChatEventDto = RouterOutputs["chat"]["events"][number];
export type ChatSessionDto = RouterOutputs["chat"]["list"][number];
export type ChatStatusDto = RouterOutputs["chat"]["status"];

/** A tool call that needed the person's approval: asked, then approved or denied (by whom, when). */
export interface ToolApproval {
  transactionId: string;
  state: "pending" | "approved" | "denied";
  reason: string | null;
  by: string | null;
  decidedAt: number | null;
}

export interface ToolUse {
  callId: string;
  name: string;
  arguments: string;
  result: { content: string; isError: boolean } | null;
  approval: ToolApproval | null;
}

/** What the assistant did, in order: text it streamed, and tool calls (by `callId`, in `tools`). */
export type TurnPart = { kind: "text"; text: string } | { kind: "tool"; callId: string };

export interface ChatTurn {
  turnId: string;
  user: string;
  at: number;
  /**
   * The answer: the text streamed after the last tool call (the final answer once the turn completed).
   * Text streamed before a tool call stays in `parts`, where it was said.
   */
  text: string;
  parts: TurnPart[];
  reasoning: string;
  tools: ToolUse[];
  /** "waiting": suspended until a tool call's approval is decided. */
  state: "running" | "waiting" | "completed" | "stopped" | "failed";
  /** Why a turn that did not complete ended (a stop reason or an error message). */
  note: string | null;
  /** What the input pipeline said during the turn: busy-input messages (queued, steering, interrupting) and command answers. */
  notices: TurnNotice[];
  /** Tokens the turn used, once it ended (the turn footer). */
  /** `cost` in `currency` when the model price table prices the agent's model. */
  /** `estimated`: (partly) Modex's estimate, the provider reported none for a call (a stopped stream). */
  usage: { input: number; output: number; total: number; estimated?: boolean; cost?: number; currency?: string } | null;
  /** A command answered outside any turn (`/help` in an idle chat): only its notices are shown. */
  system: boolean;
  /** Memory cleanups during the turn: earlier messages the model now reads as a summary (a divider above the turn). */
  summaries: ContextSummaryMark[];
}

/** Where earlier messages were summarized for the model (the transcript still shows them all). */
export interface ContextSummaryMark {
  /** Messages the summary stands for, from the start of the chat. */
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
  /** `pruned`: no summary was written (consolidate off, or the summary call failed): the text is a marker. */
  mode: "consolidated" | "pruned";
  summary: string;
}

export interface TurnNotice {
  kind: "busy" | "command" | "steer";
  text: string;
  isError: boolean;
}

const BUSY_TEXT = { QUEUE: "Queued, runs when this turn ends", INTERRUPT: "Interrupting this turn for", STEER: "Steering this turn with" } as const;

/** Folds a chat's events (in sequence order) into its turns, for display. */
export function foldChat(events: readonly ChatEventDto[]): ChatTurn[] {
  const turns: ChatTurn[] = [];
  const byId = new Map<string, ChatTurn>();
  for (const e of events) {
    let turn = byId.get(e.turnId);
    if (e.type === "user_message") {
      turn = { ...emptyTurn(e.turnId, e.text, e.at), state: "running" };
      byId.set(e.turnId, turn);
      turns.push(turn);
      continue;
    }
    if (!turn && e.type === "notice") {
      turn = { ...emptyTurn(e.turnId, e.command, e.at), system: true };
      byId.set(e.turnId, turn);
      turns.push(turn);
    }
    if (!turn) continue;
    switch (e.type) {
      case "text_delta":
        turn.text += e.text;
        setAnswer(turn);
        break;
      case "reasoning_delta":
        turn.reasoning += e.text;
        break;
      case "tool_call":
        if (!turn.tools.some((t) => t.callId === e.callId)) turn.tools.push({ callId: e.callId, name: e.name, arguments: e.arguments, result: null, approval: null });
        // Text streamed before a tool call stays where it was said (in `parts`); the answer comes after.
        turn.parts.push({ kind: "tool", callId: e.callId });
        turn.text = "";
        break;
      case "tool_result": {
        const use = turn.tools.find((t) => t.callId === e.callId);
        if (use) use.result = { content: e.content, isError: e.isError };
        break;
      }
      case "approval_requested": {
        const use = toolOf(turn, e);
        use.approval = { transactionId: e.transactionId, state: "pending", reason: null, by: null, decidedAt: null };
        turn.state = "waiting";
        break;
      }
      case "approval_decided": {
        const use = turn.tools.find((t) => t.approval?.transactionId === e.transactionId);
        if (use?.approval) use.approval = { ...use.approval, state: e.approved ? "approved" : "denied", reason: e.reason, by: e.by, decidedAt: e.at };
        if (turn.state === "waiting") turn.state = "running";
        break;
      }
      case "busy_input":
        turn.notices.push({ kind: "busy", text: `${BUSY_TEXT[e.mode]}: ${e.text}`, isError: false });
        break;
      case "notice":
        if (e.command === "resume") dropUncheckpointed(turn);
        // A steer or a resume notice says what it is itself; a command's answer is prefixed with its command.
        turn.notices.push({ kind: e.command === "steer" ? "steer" : "command", text: e.command === "steer" || e.command === "resume" ? e.text : `${e.command}: ${e.text}`, isError: e.isError });
        break;
      case "turn_completed":
        // A turn cut short before any model call reported its tokens shows none rather than "0 tokens".
        turn.usage =
          e.tokens > 0 || e.stopReason === "completed"
            ? {
                input: e.inputTokens ?? 0,
                output: e.outputTokens ?? 0,
                total: e.tokens,
                ...(e.estimated ? { estimated: true } : {}),
                ...(e.cost !== undefined && e.currency ? { cost: e.cost, currency: e.currency } : {}),
              }
            : null;
        // "interrupted": a busy-input INTERRUPT ended it (path B); like a stop, it keeps what streamed.
        turn.state = e.stopReason === "completed" ? "completed" : e.stopReason === "cancelled" || e.stopReason === "interrupted" ? "stopped" : "failed";
        // A stopped turn keeps what streamed; its result text only says that it was stopped.
        if (e.content && (e.stopReason === "completed" || turn.text === "")) {
          turn.text = e.content;
          setAnswer(turn);
        }
        turn.note = e.stopReason === "completed" ? null : (e.error ?? e.stopReason.replaceAll("_", " "));
        break;
      case "turn_failed":
        turn.state = "failed";
        turn.note = e.message;
        break;
      case "context_summarized":
        turn.summaries.push({ messages: e.coveredMessages, tokensBefore: e.tokensBefore, tokensAfter: e.tokensAfter, mode: e.mode, summary: e.summary });
        break;
    }
  }
  return turns;
}

function emptyTurn(turnId: string, user: string, at: number): ChatTurn {
  return { turnId, user, at, text: "", parts: [], reasoning: "", tools: [], state: "completed", note: null, notices: [], usage: null, system: false, summaries: [] };
}

/**
 * A turn resumed after a restart goes on from its last checkpoint (the end of its last finished tool
 * batch): what streamed after it (the answer in progress, tool calls whose result never came) is
 * streamed again, so the view drops it rather than show it twice.
 */
function dropUncheckpointed(turn: ChatTurn): void {
  const unfinished = new Set(turn.tools.filter((t) => t.result === null && t.approval === null).map((t) => t.callId));
  turn.tools = turn.tools.filter((t) => !unfinished.has(t.callId));
  turn.parts = turn.parts.filter((p) => p.kind !== "tool" || !unfinished.has(p.callId));
  if (turn.parts.at(-1)?.kind === "text") turn.parts.pop();
  turn.text = "";
}

/** Puts the turn's answer (`text`) into its last text part, after the last tool call. */
function setAnswer(turn: ChatTurn): void {
  const last = turn.parts[turn.parts.length - 1];
  if (last?.kind === "text") last.text = turn.text;
  else turn.parts.push({ kind: "text", text: turn.text });
}

/** The call an approval is about (the tool_call event normally came first; otherwise it is added). */
function toolOf(turn: ChatTurn, e: { callId: string; name: string; arguments: string }): ToolUse {
  const found = turn.tools.find((t) => t.callId === e.callId);
  if (found) return found;
  const use: ToolUse = { callId: e.callId, name: e.name, arguments: e.arguments, result: null, approval: null };
  turn.tools.push(use);
  turn.parts.push({ kind: "tool", callId: e.callId });
  turn.text = "";
  return use;
}

/** The instance a successful `run_graph` call started (its result is JSON naming `instanceId`), if any. */
export function startedInstanceOf(use: ToolUse): string | null {
  if (use.name !== "run_graph" || !use.result || use.result.isError) return null;
  try {
    const parsed = JSON.parse(use.result.content) as { instanceId?: unknown };
    return typeof parsed.instanceId === "string" && /^[\w-]+$/.test(parsed.instanceId) ? parsed.instanceId : null;
  } catch {
    return null;
  }
}

/** Tool arguments as indented JSON (as sent when they are not JSON). */
export function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
