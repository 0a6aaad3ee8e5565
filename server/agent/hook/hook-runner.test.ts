import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentCancelledError, LoopDetectedError, isHookError, isHookTimeout } from "../errors";
import { recordingLogger } from "../logger";
import { testTurn } from "../testing/turn-fixture";
import type { HookContext } from "./hook-context";
import {
  AfterLlmResponseHook,
  BeforeIterationHook,
  BeforeLlmHook,
  FinalizeContentHook,
  Hook,
  HOOK_CLASS,
} from "./hook-contracts";
import { HookErrorPolicy } from "./hook-error-policy";
import { ALL_HOOK_POINTS, HOOK_METHOD } from "./hook-point";
import { DEFAULT_HOOK_TIMEOUT_MS, HookRunner } from "./hook-runner";

class Recorder extends BeforeIterationHook {
  constructor(
    private readonly label: string,
    private readonly log: string[],
  ) {
    super();
  }
  override get name(): string {
    return this.label;
  }
  beforeIteration(): void {
    this.log.push(this.label);
  }
}

class Throwing extends BeforeIterationHook {
  constructor(private readonly error: unknown) {
    super();
  }
  beforeIteration(): void {
    throw this.error;
  }
}

class Hanging extends BeforeIterationHook {
  aborted = false;
  beforeIteration(ctx: HookContext<"BEFORE_ITERATION">): Promise<void> {
    ctx.signal.addEventListener("abort", () => (this.aborted = true));
    return new Promise(() => {});
  }
}

/** One hook implementing two points by `implements`. */
class TwoPoints extends Hook implements BeforeLlmHook, AfterLlmResponseHook {
  calls: string[] = [];
  beforeLlm(): void {
    this.calls.push("beforeLlm");
  }
  afterLlmResponse(): void {
    this.calls.push("afterLlmResponse");
  }
}

const payload = { iteration: 1 };

afterEach(() => {
  vi.useRealTimers();
});

describe("hook points", () => {
  it("defines fifteen points, each with its own abstract class and method", () => {
    expect(ALL_HOOK_POINTS).toHaveLength(15);
    expect(new Set(Object.values(HOOK_CLASS)).size).toBe(15);
    expect(new Set(Object.values(HOOK_METHOD)).size).toBe(15);
  });

  it("dispatches by type: a multi-point hook receives exactly the points it implements", async () => {
    const hook = new TwoPoints();
    expect(hook instanceof BeforeLlmHook).toBe(true);
    expect(hook instanceof AfterLlmResponseHook).toBe(true);
    expect(hook instanceof BeforeIterationHook).toBe(false);
    const runner = new HookRunner().register(hook);
    const turn = testTurn();
    await runner.dispatch("BEFORE_ITERATION", turn, payload);
    await runner.dispatch("BEFORE_LLM", turn, { request: { messages: [], tools: [] } });
    await runner.dispatch("AFTER_LLM_RESPONSE", turn, { response: null });
    expect(hook.calls).toEqual(["beforeLlm", "afterLlmResponse"]);
  });

  it("keeps ordinary instanceof for concrete subclasses", () => {
    const log: string[] = [];
    expect(new Recorder("a", log) instanceof Recorder).toBe(true);
    expect(new TwoPoints() instanceof Recorder).toBe(false);
  });

  it("passes the turn state and payload to the hook", async () => {
    let seen: HookContext<"BEFORE_ITERATION"> | undefined;
    class Capture extends BeforeIterationHook {
      beforeIteration(ctx: HookContext<"BEFORE_ITERATION">): void {
        seen = ctx;
      }
    }
    const turn = testTurn();
    await new HookRunner().register(new Capture()).dispatch("BEFORE_ITERATION", turn, { iteration: 4 });
    expect(seen?.turn).toBe(turn);
    expect(seen?.iteration).toBe(4);
    expect(seen?.point).toBe("BEFORE_ITERATION");
  });
});

describe("HookRunner ordering", () => {
  it("runs lower priority first, default 0, equal priorities in registration order", async () => {
    const log: string[] = [];
    const runner = new HookRunner()
      .register({ hook: new Recorder("b0", log) })
      .register({ hook: new Recorder("late", log), priority: 10 })
      .register({ hook: new Recorder("first", log), priority: -1000 })
      .register({ hook: new Recorder("c0", log), priority: 0 });
    await runner.dispatch("BEFORE_ITERATION", testTurn(), payload);
    expect(log).toEqual(["first", "b0", "c0", "late"]);
  });

  it("replaces a same-name hook on register, and a default never displaces a registered one", async () => {
    const log: string[] = [];
    const runner = new HookRunner()
      .register({ hook: new Recorder("x", log), name: "guard" })
      .registerDefault({ hook: new Recorder("default", log), name: "guard" });
    await runner.dispatch("BEFORE_ITERATION", testTurn(), payload);
    expect(log).toEqual(["x"]);
    runner.register({ hook: new Recorder("y", log), name: "guard" });
    await runner.dispatch("BEFORE_ITERATION", testTurn(), payload);
    expect(log).toEqual(["x", "y"]);
  });
});

describe("HookRunner errors", () => {
  it("re-raises AgentControlError untouched, whatever the policy", async () => {
    const error = new LoopDetectedError("loop");
    for (const errorPolicy of Object.values(HookErrorPolicy)) {
      const runner = new HookRunner({ errorPolicy }).register(new Throwing(error));
      await expect(runner.dispatch("BEFORE_ITERATION", testTurn(), payload)).rejects.toBe(error);
    }
  });

  it("control errors stop the dispatch: later hooks do not run", async () => {
    const log: string[] = [];
    const runner = new HookRunner()
      .register(new Throwing(new AgentCancelledError("stop")))
      .register(new Recorder("after", log));
    await expect(runner.dispatch("BEFORE_ITERATION", testTurn(), payload)).rejects.toBeInstanceOf(AgentCancelledError);
    expect(log).toEqual([]);
  });

  it("LOG logs a failure and continues with the next hook", async () => {
    const logger = recordingLogger();
    const log: string[] = [];
    const runner = new HookRunner({ logger }).register(new Throwing(new Error("boom"))).register(new Recorder("next", log));
    await runner.dispatch("BEFORE_ITERATION", testTurn(), payload);
    expect(log).toEqual(["next"]);
    expect(logger.records.map((r) => r.level)).toEqual(["error"]);
    expect(logger.records[0].message).toContain("boom");
  });

  it("IGNORE swallows a failure silently", async () => {
    const logger = recordingLogger();
    const runner = new HookRunner({ logger, errorPolicy: "ignore" }).register(new Throwing(new Error("boom")));
    await runner.dispatch("BEFORE_ITERATION", testTurn(), payload);
    expect(logger.records).toEqual([]);
  });

  it("ABORT raises a HookError carrying the cause", async () => {
    const cause = new Error("boom");
    const runner = new HookRunner({ errorPolicy: "abort" }).register(new Throwing(cause));
    const error = await runner.dispatch("BEFORE_ITERATION", testTurn(), payload).catch((e: unknown) => e);
    expect(isHookError(error)).toBe(true);
    expect((error as Error).cause).toBe(cause);
  });

  it("a per-hook policy overrides the runner's", async () => {
    const runner = new HookRunner({ errorPolicy: "ignore" }).register({ hook: new Throwing(new Error("x")), errorPolicy: "abort" });
    await expect(runner.dispatch("BEFORE_ITERATION", testTurn(), payload)).rejects.toSatisfy(isHookError);
  });
});

describe("HookRunner timeout", () => {
  it("a hook that never settles times out at 10 s by default: warning plus policy, and the dispatch goes on", async () => {
    vi.useFakeTimers();
    const logger = recordingLogger();
    const hanging = new Hanging();
    const log: string[] = [];
    const runner = new HookRunner({ logger }).register(hanging).register(new Recorder("next", log));
    const done = runner.dispatch("BEFORE_ITERATION", testTurn(), payload);
    await vi.advanceTimersByTimeAsync(DEFAULT_HOOK_TIMEOUT_MS - 1);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(log).toEqual(["next"]);
    expect(hanging.aborted).toBe(true);
    expect(logger.records.map((r) => r.level)).toEqual(["warn", "error"]);
  });

  it("the timeout is overridable per dispatch, and under ABORT a timeout raises HOOK_TIMEOUT", async () => {
    vi.useFakeTimers();
    const runner = new HookRunner({ errorPolicy: "abort", logger: recordingLogger() }).register(new Hanging());
    const done = runner.dispatch("BEFORE_ITERATION", testTurn(), payload, { timeoutMs: 50 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(50);
    expect(isHookTimeout(await done)).toBe(true);
  });

  it("under IGNORE a timeout still warns", async () => {
    vi.useFakeTimers();
    const logger = recordingLogger();
    const runner = new HookRunner({ errorPolicy: "ignore", logger }).register(new Hanging());
    const done = runner.dispatch("BEFORE_ITERATION", testTurn(), payload, { timeoutMs: 5 });
    await vi.advanceTimersByTimeAsync(5);
    await done;
    expect(logger.records.map((r) => r.level)).toEqual(["warn"]);
  });
});

describe("FINALIZE_CONTENT", () => {
  class Suffix extends FinalizeContentHook {
    constructor(private readonly suffix: string) {
      super();
    }
    override get name(): string {
      return `suffix${this.suffix}`;
    }
    finalizeContent(ctx: HookContext<"FINALIZE_CONTENT">): string {
      return ctx.content + this.suffix;
    }
  }

  it("chains synchronously in priority order", () => {
    const runner = new HookRunner().register({ hook: new Suffix("B"), priority: 1 }).register({ hook: new Suffix("A") });
    expect(runner.finalizeContent(testTurn(), "x")).toBe("xAB");
  });

  it("a failing hook leaves the content unchanged under LOG", () => {
    class Bad extends FinalizeContentHook {
      finalizeContent(): string {
        throw new Error("bad");
      }
    }
    const runner = new HookRunner({ logger: recordingLogger() }).register(new Bad()).register(new Suffix("!"));
    expect(runner.finalizeContent(testTurn(), "x")).toBe("x!");
  });
});
