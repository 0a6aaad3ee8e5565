import { LoopDetectedError } from "../../errors";
import type { ChatMessage, ToolCall } from "../../llm/messages";
import { TurnCustomKey } from "../../state/turn-custom";
import type { HookContext } from "../hook-context";
import { BeforeIterationHook } from "../hook-contracts";
import { isSystemReminder, systemReminder } from "./system-reminder";

export interface LoopDetectionOptions {
  /** Trailing identical rounds that trigger the advisory reminder (default 10). */
  window?: number;
  /** Unheeded checks after the reminder before the hard exit (default 2: exit at round 13). */
  observationRounds?: number;
}

interface LoopEpisode {
  signature: string;
  checks: number;
}

export const LOOP_EPISODE = new TurnCustomKey<LoopEpisode>("loop_detection.episode");

/**
 * The two-stage loop guard, before each iteration, over the persisted history. Stage 1 (advisory): when
 * the trailing run of assistant rounds repeating one identical tool-call batch reaches `window`, a
 * reminder naming the call is appended. Stage 2 (hard exit): after `observationRounds` further checks
 * still in the same run it raises LoopDetectedError. A run that falls below the window clears the episode.
 * Batches compare by tool names and canonical arguments; call ids and call order are ignored; system
 * reminders do not break a run, a real user message does.
 */
export class LoopDetectionHook extends BeforeIterationHook {
  private readonly window: number;
  private readonly observationRounds: number;

  constructor(options: LoopDetectionOptions = {}) {
    super();
    this.window = options.window ?? 10;
    this.observationRounds = options.observationRounds ?? 2;
  }

  beforeIteration(ctx: HookContext<"BEFORE_ITERATION">): void {
    const { custom, messages } = ctx.turn;
    const run = trailingRun(messages);
    if (!run || run.count < this.window) {
      custom.delete(LOOP_EPISODE);
      return;
    }
    const episode = custom.get(LOOP_EPISODE);
    if (!episode || episode.signature !== run.signature) {
      custom.set(LOOP_EPISODE, { signature: run.signature, checks: 0 });
      messages.push(systemReminder(`You have repeated the same tool call ${run.count} times in a row (${run.label}). It is not making progress: change your approach or finish with what you have.`));
      return;
    }
    episode.checks += 1;
    if (episode.checks >= this.observationRounds) {
      throw new LoopDetectedError(`loop detected: ${run.label} repeated ${run.count} times`, {
        userContent: `I stopped because I kept repeating the same action (${run.label}) without making progress.`,
      });
    }
  }
}

/** The trailing run of identical tool-call batches in the history, newest backwards. */
export function trailingRun(messages: readonly ChatMessage[]): { signature: string; count: number; label: string } | undefined {
  let signature: string | undefined;
  let label = "";
  let count = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "tool" || isSystemReminder(m)) continue;
    if (m.role !== "assistant" || !m.toolCalls?.length) break;
    const s = batchSignature(m.toolCalls);
    if (signature === undefined) {
      signature = s;
      label = m.toolCalls.map((c) => c.name).join(", ");
    } else if (s !== signature) break;
    count += 1;
  }
  return signature === undefined ? undefined : { signature, count, label };
}

/** Same tools with the same canonical arguments, whatever the ids and order. */
export function batchSignature(calls: readonly ToolCall[]): string {
  return calls
    .map((c) => `${c.name}(${canonicalArguments(c.arguments)})`)
    .sort()
    .join("|");
}

function canonicalArguments(text: string): string {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text.trim();
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
