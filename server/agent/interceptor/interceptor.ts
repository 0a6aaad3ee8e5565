import type { LlmRequest, ToolCall } from "../llm/messages";
import type { LLMStreamEvent } from "../llm/stream-events";
import type { TurnState } from "../state/turn-state";
import type { ToolResult } from "../tools/tool-result";

/** One tool call crossing the TOOL_CALL scope. `execute` is the real tool run; interceptors call `next`. */
export interface ToolInvocation {
  readonly call: ToolCall;
  readonly turn: TurnState;
  /** The signal the tool runs under; an interceptor may pass a narrower one to `next` (timeouts do). */
  readonly signal: AbortSignal;
  /** Runs the tool; `call` (same id and tool) runs it with rewritten arguments (extensions' BEFORE_RAG_QUERY). */
  readonly execute: (signal: AbortSignal, call?: ToolCall) => Promise<ToolResult>;
}

export interface TurnInvocation {
  readonly turn: TurnState;
  readonly run: () => Promise<void>;
}

export interface IterationInvocation {
  readonly turn: TurnState;
  readonly iteration: number;
  readonly run: () => Promise<void>;
}

export interface LlmStreamInvocation {
  readonly turn: TurnState;
  readonly request: LlmRequest;
  readonly signal: AbortSignal;
  readonly open: (request: LlmRequest, signal: AbortSignal) => AsyncIterable<LLMStreamEvent>;
}

export type NextToolCall = (inv: ToolInvocation) => Promise<ToolResult>;
export type NextTurn = (inv: TurnInvocation) => Promise<void>;
export type NextIteration = (inv: IterationInvocation) => Promise<void>;
export type NextLlmStream = (inv: LlmStreamInvocation) => AsyncIterable<LLMStreamEvent>;

/**
 * Wraps call boundaries. An interceptor implements the `around*` method of each scope it is registered
 * on, and must return (or yield) what `next` produced, possibly transformed. It may time out, transform or
 * cancel the call; it must let AgentControlError and cancellation through.
 */
export abstract class Interceptor {
  aroundToolCall?(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult>;
  aroundTurn?(inv: TurnInvocation, next: NextTurn): Promise<void>;
  aroundIteration?(inv: IterationInvocation, next: NextIteration): Promise<void>;
  aroundLlmStream?(inv: LlmStreamInvocation, next: NextLlmStream): AsyncIterable<LLMStreamEvent>;

  get name(): string {
    return this.constructor.name;
  }
}
