import { describe, expect, it } from "vitest";
import {
  AGENT_ERROR_CODES,
  AgentCancelledError,
  AgentError,
  HookError,
  abortErrorFrom,
  describeError,
  isAbortError,
  isAgentControlError,
  isAgentError,
  isHookError,
  isHookTimeout,
  isToolError,
  mustPropagate,
  toAgentError,
} from "./errors";

describe("agent errors", () => {
  it("control errors and real failures are separate families", () => {
    const control = new AgentCancelledError("stop");
    const failure = new AgentError(AGENT_ERROR_CODES.TOOL_FAILED, "x");
    expect(isAgentControlError(control)).toBe(true);
    expect(isAgentError(control)).toBe(false);
    expect(isAgentError(failure)).toBe(true);
    expect(isAgentControlError(failure)).toBe(false);
    expect(mustPropagate(failure)).toBe(false);
    expect(isToolError(failure)).toBe(true);
  });

  it("hook errors carry the hook's name and a literal code", () => {
    const timeout = new HookError({ code: AGENT_ERROR_CODES.HOOK_TIMEOUT, hookName: "slow", message: "m" });
    expect(isHookError(timeout) && isHookTimeout(timeout)).toBe(true);
    expect(timeout.hookName).toBe("slow");
    expect(isHookTimeout(new HookError({ code: AGENT_ERROR_CODES.HOOK_FAILED, hookName: "h", message: "m" }))).toBe(false);
  });

  it("toAgentError normalizes unknown throws at a boundary and keeps agent errors", () => {
    const same = new AgentError(AGENT_ERROR_CODES.PROVIDER_FAILED, "p");
    expect(toAgentError(same)).toBe(same);
    const wrapped = toAgentError("boom", AGENT_ERROR_CODES.STREAM_FAILED);
    expect(wrapped).toMatchObject({ code: "STREAM_FAILED", message: "boom", cause: "boom" });
  });

  it("abortErrorFrom gives the signal's Error reason, or a standard AbortError", () => {
    const custom = new Error("mine");
    const a = new AbortController();
    a.abort(custom);
    expect(abortErrorFrom(a.signal)).toBe(custom);
    const b = new AbortController();
    b.abort("user stop");
    expect(isAbortError(abortErrorFrom(b.signal))).toBe(true);
    expect(describeError(abortErrorFrom(b.signal))).toBe("AbortError: user stop");
  });
});
