import type { ToolInvocation } from "../interceptor/interceptor";
import type { TurnState } from "../state/turn-state";
import { okResult, type ToolResult } from "../tools/tool-result";
import { testTurn } from "./turn-fixture";

export interface InvocationFixture {
  name?: string;
  turn?: TurnState;
  signal?: AbortSignal;
  execute?: (signal: AbortSignal) => Promise<ToolResult>;
}

/** A tool invocation for interceptor tests; by default the tool answers "ok". */
export function toolInvocation(fixture: InvocationFixture = {}): ToolInvocation {
  const name = fixture.name ?? "echo";
  return {
    call: { id: "call_1", name, arguments: "{}" },
    turn: fixture.turn ?? testTurn(),
    signal: fixture.signal ?? new AbortController().signal,
    execute: fixture.execute ?? (async () => okResult("call_1", name, "ok")),
  };
}

/** A promise that settles only when `signal` aborts (rejecting with its reason), like a well-behaved tool. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
