import type { ChatMessage } from "../llm/messages";
import type { TurnState } from "../state/turn-state";
import type { ContextSummary } from "./context-summary";

/**
 * The memory system's own hook points (spec, Runtime Layers, "The memory hook family"): dispatched by
 * MemoryHookRunner, never by the agent's HookRunner.
 *
 * CORE_MEMORY_UPDATED is declared and never fired: Modex keeps no core memory (a standing, agent-edited
 * block of facts beside the conversation); a session's memory is its conversation plus the summary.
 */
export const MEMORY_HOOK_POINTS = ["CLEANUP_TRIGGERED", "CLEANUP_FINISHED", "CONTEXT_ASSEMBLED", "CORE_MEMORY_UPDATED", "CONSOLIDATION_FINISHED"] as const;
export type MemoryHookPoint = (typeof MEMORY_HOOK_POINTS)[number];

export interface MemoryHookPayloads {
  /** The request is over budget and a cleanup starts: `tokens` estimated, `cut` the first message kept. */
  CLEANUP_TRIGGERED: { tokens: number; budget: number; cut: number; messages: number; at: number };
  /**
   * The summary is stored; `context` is the request's message list being assembled (summary, then the kept
   * messages): a hook may append to it (TodoReorientationHook does), never to the turn's history.
   */
  CLEANUP_FINISHED: { summary: ContextSummary; context: ChatMessage[]; startedAt: number; at: number };
  /** The messages of the request, as they go to the model (cleanup or not). */
  CONTEXT_ASSEMBLED: { messages: readonly ChatMessage[]; tokens: number; summarized: boolean };
  /** Never fired (no core memory; see MEMORY_HOOK_POINTS). */
  CORE_MEMORY_UPDATED: Record<string, never>;
  /** The model's summary call ended: `text` null when it failed (the cleanup then prunes). */
  CONSOLIDATION_FINISHED: { text: string | null; error: string | null; startedAt: number; at: number };
}

export interface MemoryHookContext<P extends MemoryHookPoint> {
  point: P;
  turn: TurnState;
  payload: MemoryHookPayloads[P];
}

/** A memory hook: one optional method per point it observes. Called once per event, in registration order. */
export type MemoryHook = { readonly name: string } & { [P in MemoryHookPoint]?: (ctx: MemoryHookContext<P>) => void | Promise<void> };
