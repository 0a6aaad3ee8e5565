import { abortErrorFrom } from "../../errors";
import type { ToolResult } from "../../tools/tool-result";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor";

export const DEFAULT_TOOL_TIMEOUT_MS = 540_000;

export interface ToolTimeoutOptions {
  /** Default deadline per call (540 s). */
  timeoutMs?: number;
  /** Per-call deadline (e.g. from a safety config); `undefined` falls back to `timeoutMs`. */
  resolveTimeoutMs?: (inv: ToolInvocation) => number | undefined;
}

const TIMED_OUT: unique symbol = Symbol("tool-timeout");

/**
 * The mandatory per-invocation tool deadline. Composed innermost by the ToolExecutor, so it measures only
 * the tool's own time. On expiry it aborts the tool's signal and returns a `<tool_timeout>` error result:
 * the ReAct loop goes on. A cancellation of the outer signal still propagates as cancellation.
 */
export class ToolTimeoutInterceptor extends Interceptor {
  constructor(private readonly options: ToolTimeoutOptions = {}) {
    super();
  }

  async aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
    const timeoutMs = this.options.resolveTimeoutMs?.(inv) ?? this.options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    if (inv.signal.aborted) throw abortErrorFrom(inv.signal);
    const controller = new AbortController();
    let rejectOnOuterAbort: (e: Error) => void = () => {};
    // Cancellation must not wait for a tool that ignores its signal: the outer abort settles the race too.
    const cancelled = new Promise<never>((_, reject) => (rejectOnOuterAbort = reject));
    const onOuterAbort = (): void => {
      controller.abort(inv.signal.reason);
      rejectOnOuterAbort(abortErrorFrom(inv.signal));
    };
    inv.signal.addEventListener("abort", onOuterAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
    });
    try {
      const running = next({ ...inv, signal: controller.signal });
      const outcome = await Promise.race([running, deadline, cancelled]);
      if (outcome !== TIMED_OUT) return outcome;
      running.catch(() => {}); // the aborted tool may still settle; its outcome no longer matters
      controller.abort(new DOMException(`tool ${inv.call.name} timed out`, "TimeoutError"));
      return timeoutResult(inv, timeoutMs);
    } finally {
      clearTimeout(timer);
      inv.signal.removeEventListener("abort", onOuterAbort);
    }
  }
}

function timeoutResult(inv: ToolInvocation, timeoutMs: number): ToolResult {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return {
    callId: inv.call.id,
    name: inv.call.name,
    content: `<tool_timeout>Tool ${inv.call.name} did not finish within ${seconds} s and was cancelled.</tool_timeout>`,
    isError: true,
    timedOut: true,
  };
}
