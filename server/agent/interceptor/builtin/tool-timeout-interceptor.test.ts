import { afterEach, describe, expect, it, vi } from "vitest";
import { toolInvocation, untilAborted } from "../../testing/tool-invocation-fixture";
import { okResult } from "../../tools/tool-result";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor";
import { InterceptorChain } from "../interceptor-chain";
import { DEFAULT_TOOL_TIMEOUT_MS, ToolTimeoutInterceptor } from "./tool-timeout-interceptor";

afterEach(() => {
  vi.useRealTimers();
});

describe("ToolTimeoutInterceptor", () => {
  it("defaults to 540 s, aborts the tool's signal and returns a <tool_timeout> result", async () => {
    vi.useFakeTimers();
    expect(DEFAULT_TOOL_TIMEOUT_MS).toBe(540_000);
    let toolSignal: AbortSignal | undefined;
    const chain = new InterceptorChain({ innermostTool: new ToolTimeoutInterceptor() });
    const pending = chain.runToolCall(
      toolInvocation({
        execute: (signal) => {
          toolSignal = signal;
          return untilAborted(signal);
        },
      }),
    );
    await vi.advanceTimersByTimeAsync(DEFAULT_TOOL_TIMEOUT_MS - 1);
    expect(toolSignal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await pending;
    expect(toolSignal?.aborted).toBe(true);
    expect(result.isError).toBe(true);
    expect(result.timedOut).toBe(true);
    expect(result.content).toMatch(/^<tool_timeout>.*<\/tool_timeout>$/);
  });

  it("returns the tool's result when it finishes in time", async () => {
    const chain = new InterceptorChain({ innermostTool: new ToolTimeoutInterceptor({ timeoutMs: 1_000 }) });
    const result = await chain.runToolCall(toolInvocation({ execute: async () => okResult("call_1", "echo", "done") }));
    expect(result).toEqual(okResult("call_1", "echo", "done"));
  });

  it("resolves the deadline per call", async () => {
    vi.useFakeTimers();
    const interceptor = new ToolTimeoutInterceptor({ resolveTimeoutMs: (inv) => (inv.call.name === "slow" ? 10 : undefined) });
    const chain = new InterceptorChain({ innermostTool: interceptor });
    const pending = chain.runToolCall(toolInvocation({ name: "slow", execute: (signal) => untilAborted(signal) }));
    await vi.advanceTimersByTimeAsync(10);
    expect((await pending).timedOut).toBe(true);
  });

  it("measures only tool time: outer interceptors' time does not count", async () => {
    vi.useFakeTimers();
    class SlowOuter extends Interceptor {
      async aroundToolCall(inv: ToolInvocation, next: NextToolCall) {
        await new Promise((r) => setTimeout(r, 100));
        return next(inv);
      }
    }
    const chain = new InterceptorChain({ innermostTool: new ToolTimeoutInterceptor({ timeoutMs: 50 }) }).register(new SlowOuter(), "TOOL_CALL");
    const pending = chain.runToolCall(
      toolInvocation({ execute: () => new Promise((r) => setTimeout(() => r(okResult("call_1", "echo", "fast")), 40)) }),
    );
    await vi.advanceTimersByTimeAsync(140);
    expect((await pending).content).toBe("fast");
  });

  it("an outer cancellation does not wait for a tool that ignores its signal", async () => {
    const outer = new AbortController();
    const chain = new InterceptorChain({ innermostTool: new ToolTimeoutInterceptor({ timeoutMs: 60_000 }) });
    const pending = chain.runToolCall(toolInvocation({ signal: outer.signal, execute: () => new Promise(() => {}) }));
    outer.abort("user pressed stop");
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("an outer cancellation propagates as cancellation, not as a timeout", async () => {
    const outer = new AbortController();
    const chain = new InterceptorChain({ innermostTool: new ToolTimeoutInterceptor({ timeoutMs: 60_000 }) });
    const pending = chain.runToolCall(toolInvocation({ signal: outer.signal, execute: (signal) => untilAborted(signal) }));
    outer.abort(new DOMException("user interrupt", "AbortError"));
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });
});
