import { describe, expect, it } from "vitest";
import { AgentCancelledError } from "../errors";
import { recordingLogger } from "../logger";
import { Extension, type ExtensionContextFor } from "./extension";
import { ExtensionContext } from "./extension-context";
import { ExtensionManager } from "./extension-manager";

function manager() {
  const logger = recordingLogger();
  return { logger, manager: new ExtensionManager({ logger }) };
}

class Named extends Extension {
  constructor(readonly name: string, priority?: number) {
    super();
    if (priority !== undefined) this.priority = priority;
  }
}

/** Records the order extensions ran in, at BEFORE_MESSAGE_PROCESS. */
class Tracer extends Named {
  constructor(name: string, priority: number, private readonly log: string[]) {
    super(name, priority);
  }
  onBeforeMessageProcess(): void {
    this.log.push(this.name);
  }
}

class Append extends Named {
  constructor(private readonly suffix: string, name: string, priority: number) {
    super(name, priority);
  }
  onBeforeResponseSend(ctx: ExtensionContextFor<"BEFORE_RESPONSE_SEND">): string {
    return ctx.get("response", "") + this.suffix;
  }
}

class Broken extends Named {
  constructor(name = "broken") {
    super(name);
  }
  onBeforeMessageProcess(): void {
    throw new Error("intentional failure");
  }
  onBeforeResponseSend(): string {
    throw new Error("intentional failure");
  }
  onBeforeLlmCall(): boolean {
    throw new Error("intentional failure");
  }
  async onApprovalRequired(): Promise<boolean> {
    throw new Error("async failure");
  }
}

/** The spec's example: vetoes LLM calls past a per-session budget. */
class RateLimit extends Extension {
  readonly name = "rate_limit";
  priority = 20;
  private readonly calls = new Map<string, number>();
  constructor(private readonly maxCalls: number) {
    super();
  }
  onBeforeLlmCall(ctx: ExtensionContextFor<"BEFORE_LLM_CALL">): boolean | void {
    const used = this.calls.get(ctx.sessionId) ?? 0;
    if (used >= this.maxCalls) return false;
    this.calls.set(ctx.sessionId, used + 1);
  }
  onSessionDestroy(ctx: ExtensionContextFor<"SESSION_DESTROY">): void {
    this.calls.delete(ctx.sessionId);
  }
}

const responseCtx = (response: string) => new ExtensionContext<{ response: string }>({ sessionId: "s1", data: { response } });
const llmCtx = () => new ExtensionContext({ sessionId: "sess-test", data: { prompt: [], llmParams: { tools: [] } } });

describe("ExtensionManager: registration", () => {
  it("register returns false and warns when the name is taken; the first one stays", () => {
    const { manager: m, logger } = manager();
    const first = new Named("a");
    expect(m.register(first)).toBe(true);
    expect(m.register(new Named("a"))).toBe(false);
    expect(m.get("a")).toBe(first);
    expect(m.listExtensions()).toEqual(["a"]);
    expect(logger.records.some((r) => r.level === "warn" && r.message.includes("already registered"))).toBe(true);
  });

  it("unregister removes by name; an unknown name gives false", () => {
    const { manager: m } = manager();
    m.register(new Named("a"));
    expect(m.unregister("a")).toBe(true);
    expect(m.unregister("a")).toBe(false);
    expect(m.listExtensions()).toEqual([]);
  });

  it("load instantiates and registers each class, counting the ones registered", () => {
    const { manager: m } = manager();
    class One extends Extension {
      readonly name = "one";
    }
    class Two extends Extension {
      readonly name = "two";
    }
    expect(m.load([One, Two, One])).toBe(2);
    expect(m.listExtensions()).toEqual(["one", "two"]);
  });

  it("runs lower priority first; equal priorities keep registration order", async () => {
    const { manager: m } = manager();
    const log: string[] = [];
    m.register(new Tracer("late", 90, log));
    m.register(new Tracer("b", 50, log));
    m.register(new Tracer("early", 1, log));
    m.register(new Tracer("c", 50, log));
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "hi" } }));
    expect(log).toEqual(["early", "b", "c", "late"]);
    expect(m.listExtensions()).toEqual(["early", "b", "c", "late"]);
  });

  it("a priority changed after registration takes effect at the next invocation", async () => {
    const { manager: m } = manager();
    const log: string[] = [];
    const a = new Tracer("a", 10, log);
    m.register(a);
    m.register(new Tracer("b", 20, log));
    a.priority = 30;
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext());
    expect(log).toEqual(["b", "a"]);
  });

  it("skips a disabled extension silently and runs it again once enabled", async () => {
    const { manager: m, logger } = manager();
    const log: string[] = [];
    m.register(new Tracer("a", 1, log));
    expect(m.disableExtension("a")).toBe(true);
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext());
    expect(log).toEqual([]);
    expect(m.listExtensions()).toEqual(["a"]);
    expect(m.enableExtension("a")).toBe(true);
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext());
    expect(log).toEqual(["a"]);
    expect(m.enableExtension("nope")).toBe(false);
    expect(logger.records).toEqual([]);
  });

  it("statistics: counts and each extension's status, points, calls and failures", async () => {
    const { manager: m } = manager();
    m.register(new RateLimit(5));
    m.register(new Broken());
    m.disableExtension("broken");
    await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx());
    m.enableExtension("broken");
    await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx());
    expect(m.getStatistics()).toEqual({
      total: 2,
      enabled: 2,
      disabled: 0,
      extensions: [
        { name: "rate_limit", priority: 20, enabled: true, points: ["BEFORE_LLM_CALL", "SESSION_DESTROY"], calls: 2, failures: 0, vetoes: 0, timeMs: expect.any(Number) },
        { name: "broken", priority: 50, enabled: true, points: ["BEFORE_MESSAGE_PROCESS", "BEFORE_LLM_CALL", "BEFORE_RESPONSE_SEND", "APPROVAL_REQUIRED"], calls: 1, failures: 1, vetoes: 0, timeMs: expect.any(Number), lastError: { point: "BEFORE_LLM_CALL", message: "Error: intentional failure", at: expect.any(Number) } },
      ],
    });
  });

  it("statistics: a veto is counted for the extension that returned false; reset zeroes the counts", async () => {
    const { manager: m } = manager();
    m.register(new RateLimit(1));
    await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx());
    expect(await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx())).toBe(false);
    expect(m.getStatistics().extensions[0]).toMatchObject({ name: "rate_limit", calls: 2, vetoes: 1 });
    m.resetStatistics();
    expect(m.getStatistics().extensions[0]).toMatchObject({ calls: 0, vetoes: 0, timeMs: 0 });
  });

  it("takeUnflushed hands out what each extension did since the previous take (calls, vetoes, failures, latest failure, own counters' growth) and starts again; a reset drops it", async () => {
    const { manager: m } = manager();
    class Seen extends Tracer {
      seen = 0;
      override onBeforeMessageProcess(): void {
        this.seen += 1;
      }
      counters() {
        return { seen: this.seen };
      }
      resetCounters() {
        this.seen = 0;
      }
    }
    m.register(new RateLimit(1));
    m.register(new Seen("seen", 30, []));
    m.register(new Broken());
    m.register(new Named("idle", 60));
    await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx());
    await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx());
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "hi" } }));
    const first = m.takeUnflushed();
    expect(first.map((d) => d.name)).toEqual(["rate_limit", "seen", "broken"]);
    expect(first[0]).toMatchObject({ calls: 2, vetoes: 1, failures: 0, counters: {} });
    expect(first[1]).toMatchObject({ calls: 1, counters: { seen: 1 } });
    expect(first[2]).toMatchObject({ calls: 2, failures: 2, lastError: { point: "BEFORE_MESSAGE_PROCESS" } });
    expect(m.takeUnflushed()).toEqual([]);
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "again" } }));
    expect(m.takeUnflushed().find((d) => d.name === "seen")).toMatchObject({ calls: 1, counters: { seen: 1 } });
    // The process's own statistics still hold everything since start-up.
    expect(m.getStatistics().extensions.find((e) => e.name === "seen")).toMatchObject({ calls: 2, counters: { seen: 2 } });
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "dropped" } }));
    m.resetStatistics();
    expect(m.takeUnflushed()).toEqual([]);
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "after" } }));
    expect(m.takeUnflushed().find((d) => d.name === "seen")).toMatchObject({ calls: 1, counters: { seen: 1 } });
  });

  it("reset zeroes each extension's own counters too (resetCounters); one that throws there is logged and the others are still reset", () => {
    const { manager: m, logger } = manager();
    class Counting extends Named {
      seen = 3;
      counters() {
        return { seen: this.seen };
      }
      resetCounters() {
        this.seen = 0;
      }
    }
    class BadReset extends Counting {
      resetCounters(): void {
        throw new Error("cannot");
      }
    }
    m.register(new BadReset("bad", 1));
    m.register(new Counting("good", 2));
    m.resetStatistics();
    expect(m.getStatistics().extensions.map((e) => [e.name, e.counters])).toEqual([["bad", { seen: 3 }], ["good", { seen: 0 }]]);
    expect(logger.records.filter((r) => r.level === "error").map((r) => r.message)).toEqual(["extension bad failed to reset its counters: Error: cannot"]);
  });
});

describe("ExtensionManager: COLLECT", () => {
  it("calls every enabled extension and gathers the non-None results, false included", async () => {
    const { manager: m } = manager();
    m.register(new RateLimit(2));
    const r1 = await m.invokeCollect("BEFORE_LLM_CALL", llmCtx());
    const r2 = await m.invokeCollect("BEFORE_LLM_CALL", llmCtx());
    const r3 = await m.invokeCollect("BEFORE_LLM_CALL", llmCtx());
    expect(r1).not.toContain(false);
    expect(r2).not.toContain(false);
    expect(r3).toContain(false);
  });

  it("a returned value is collected, not written to ctx.data", async () => {
    const { manager: m } = manager();
    m.register(new Append("-A", "a", 1));
    const ctx = responseCtx("base");
    expect(await m.invokeCollect("BEFORE_RESPONSE_SEND", ctx)).toEqual(["base-A"]);
    expect(ctx.get("response")).toBe("base");
  });

  it("accepts sync and async methods alike", async () => {
    const { manager: m } = manager();
    class Later extends Named {
      async onDuringLlmStreaming(ctx: ExtensionContextFor<"DURING_LLM_STREAMING">): Promise<string> {
        await new Promise((r) => setTimeout(r, 1));
        return ctx.get("chunk", "").toUpperCase();
      }
    }
    class Now extends Named {
      onDuringLlmStreaming(): string {
        return "now";
      }
    }
    m.register(new Later("later", 1));
    m.register(new Now("now", 2));
    const results = await m.invokeCollect("DURING_LLM_STREAMING", new ExtensionContext({ data: { chunk: "abc", context: { iteration: 1, final: false, channel: "text" } } }));
    expect(results).toEqual(["ABC", "now"]);
  });
});

describe("ExtensionManager: TRANSFORM", () => {
  it("chains modifications through ctx.data[key] in priority order", async () => {
    const { manager: m } = manager();
    m.register(new Append("-B", "ext2", 20));
    m.register(new Append("-A", "ext1", 10));
    const ctx = responseCtx("base");
    expect(await m.invokeTransform("BEFORE_RESPONSE_SEND", ctx, { key: "response" })).toBe("base-A-B");
    expect(ctx.get("response")).toBe("base-A-B");
  });

  it("returning nothing leaves the value; a value set directly on the context is kept", async () => {
    const { manager: m } = manager();
    class Silent extends Named {
      onBeforeResponseSend(): void {}
    }
    class Setter extends Named {
      onBeforeResponseSend(ctx: ExtensionContextFor<"BEFORE_RESPONSE_SEND">): void {
        ctx.set("response", "set directly");
      }
    }
    m.register(new Silent("silent", 1));
    expect(await m.invokeTransform("BEFORE_RESPONSE_SEND", responseCtx("base"), { key: "response" })).toBe("base");
    m.register(new Setter("setter", 2));
    expect(await m.invokeTransform("BEFORE_RESPONSE_SEND", responseCtx("base"), { key: "response" })).toBe("set directly");
  });

  it("an asynchronous call that never answers is skipped as failed after the call timeout; the others go on", async () => {
    const logger = recordingLogger();
    const m = new ExtensionManager({ logger, callTimeoutMs: 50 });
    class Hung extends Named {
      onBeforeResponseSend(): Promise<string> {
        return new Promise(() => {});
      }
    }
    m.register(new Append("-A", "a", 10));
    m.register(new Hung("hung", 20));
    m.register(new Append("-C", "c", 90));
    expect(await m.invokeTransform("BEFORE_RESPONSE_SEND", responseCtx("base"), { key: "response" })).toBe("base-A-C");
    expect(logger.records.filter((r) => r.level === "error").map((r) => r.message).join()).toMatch(/hung.*did not answer within 50 ms/s);
    expect(m.getStatistics().extensions.find((e) => e.name === "hung")?.lastError).toMatchObject({ point: "BEFORE_RESPONSE_SEND", message: "Error: did not answer within 50 ms" });
  });

  it("statistics keep each extension's latest failure (point, what it threw, when) until a reset; one that never failed has none", async () => {
    const { manager: m } = manager();
    m.register(new Broken("broken"));
    m.register(new Append("-A", "a", 10));
    const before = Date.now();
    await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "hi" } }));
    await m.invokeTransform("BEFORE_RESPONSE_SEND", responseCtx("base"), { key: "response" });
    const [append, broken] = m.getStatistics().extensions;
    expect(append).not.toHaveProperty("lastError");
    expect(broken).toMatchObject({ failures: 2, lastError: { point: "BEFORE_RESPONSE_SEND", message: "Error: intentional failure" } });
    expect(broken.lastError!.at).toBeGreaterThanOrEqual(before);
    m.resetStatistics();
    expect(m.getStatistics().extensions[1]).not.toHaveProperty("lastError");
  });

  it("a failing extension does not modify the value; later ones run with the current value", async () => {
    const { manager: m, logger } = manager();
    m.register(new Append("-A", "a", 10));
    m.register(new Broken("broken"));
    m.register(new Append("-C", "c", 90));
    expect(await m.invokeTransform("BEFORE_RESPONSE_SEND", responseCtx("base"), { key: "response" })).toBe("base-A-C");
    expect(logger.records.filter((r) => r.level === "error")).toHaveLength(1);
  });

  it("warns when a value has the wrong type, and still stores it (the caller's guard falls back)", async () => {
    const { manager: m, logger } = manager();
    class Numeric extends Named {
      onBeforeResponseSend(): string {
        return 42 as unknown as string; // a misbehaving extension, as JavaScript allows
      }
    }
    m.register(new Numeric("numeric", 1));
    const result = await m.invokeTransform("BEFORE_RESPONSE_SEND", responseCtx("base"), { key: "response", expectedType: "string" });
    expect(result).toBe(42);
    expect(logger.records).toContainEqual(expect.objectContaining({ level: "warn", message: "BEFORE_RESPONSE_SEND returned number, expected string" }));
  });
});

describe("ExtensionManager: UNTIL_HANDLED", () => {
  class Approver extends Named {
    calls = 0;
    constructor(name: string, priority: number, private readonly answer: boolean | void) {
      super(name, priority);
    }
    onApprovalRequired(): boolean | void {
      this.calls += 1;
      return this.answer;
    }
  }
  const ctx = () => new ExtensionContext({ data: { toolCall: { id: "c1", name: "rm", arguments: "{}" }, message: "rm -rf" } });

  it("stops at the first truthy result and returns it", async () => {
    const { manager: m } = manager();
    const pass = new Approver("pass", 1, undefined);
    const no = new Approver("no", 2, false);
    const yes = new Approver("yes", 3, true);
    const after = new Approver("after", 4, true);
    for (const e of [pass, no, yes, after]) m.register(e);
    expect(await m.invokeUntilHandled("APPROVAL_REQUIRED", ctx())).toBe(true);
    expect([pass.calls, no.calls, yes.calls, after.calls]).toEqual([1, 1, 1, 0]);
  });

  it("returns undefined when nobody handled it; a failure counts as not handled", async () => {
    const { manager: m } = manager();
    m.register(new Broken());
    m.register(new Approver("pass", 60, undefined));
    expect(await m.invokeUntilHandled("APPROVAL_REQUIRED", ctx())).toBeUndefined();
  });
});

describe("ExtensionManager: CANCELLABLE", () => {
  class Gate extends Named {
    calls = 0;
    constructor(name: string, priority: number, private readonly answer: unknown) {
      super(name, priority);
    }
    onBeforeLlmCall(): boolean | void {
      this.calls += 1;
      return this.answer as boolean | void;
    }
  }

  it("an explicit false stops the loop, returns false and names who cancelled", async () => {
    const { manager: m } = manager();
    const first = new Gate("first", 1, undefined);
    const veto = new Gate("veto", 2, false);
    const after = new Gate("after", 3, undefined);
    for (const e of [first, veto, after]) m.register(e);
    const ctx = llmCtx();
    expect(await m.invokeCancellable("BEFORE_LLM_CALL", ctx)).toBe(false);
    expect([first.calls, veto.calls, after.calls]).toEqual([1, 1, 0]);
    expect(ctx.cancelledBy).toBe("veto");
  });

  it("only false cancels: nothing, null, 0 and true let the operation proceed", async () => {
    const { manager: m } = manager();
    [undefined, null, 0, true, ""].forEach((answer, i) => m.register(new Gate(`g${i}`, i, answer)));
    const ctx = llmCtx();
    expect(await m.invokeCancellable("BEFORE_LLM_CALL", ctx)).toBe(true);
    expect(ctx.cancelledBy).toBeUndefined();
  });

  it("an extension that throws is not a veto: the operation proceeds", async () => {
    const { manager: m } = manager();
    m.register(new Broken());
    expect(await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx())).toBe(true);
  });

  it("the spec's rate limit: the third call in budget 2 is cancelled", async () => {
    const { manager: m } = manager();
    m.register(new RateLimit(2));
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await m.invokeCancellable("BEFORE_LLM_CALL", llmCtx()));
    expect(outcomes).toEqual([true, true, false]);
  });
});

describe("ExtensionManager: extension errors are non-fatal", () => {
  it("a throwing extension is logged with its name and point and yields no result", async () => {
    const { manager: m, logger } = manager();
    m.register(new Broken());
    const results = await m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ sessionId: "sess-1" }));
    expect(results).toEqual([]);
    expect(logger.records).toEqual([
      expect.objectContaining({ level: "error", message: "extension broken failed at BEFORE_MESSAGE_PROCESS: Error: intentional failure" }),
    ]);
  });

  it("does not stop the other extensions, and a rejected promise counts the same", async () => {
    const { manager: m, logger } = manager();
    class Yes extends Named {
      onApprovalRequired(): boolean {
        return true;
      }
    }
    m.register(new Broken());
    m.register(new Yes("yes", 99));
    const ctx = new ExtensionContext({ data: { toolCall: { id: "c", name: "t", arguments: "{}" }, message: "" } });
    expect(await m.invokeUntilHandled("APPROVAL_REQUIRED", ctx)).toBe(true);
    expect(logger.records[0].message).toContain("async failure");
  });

  it("lets control errors through: the runtime ending the turn is not a misbehaving extension", async () => {
    const { manager: m } = manager();
    class Stop extends Named {
      onBeforeMessageProcess(): void {
        throw new AgentCancelledError("user pressed stop");
      }
    }
    m.register(new Stop("stop"));
    await expect(m.invokeCollect("BEFORE_MESSAGE_PROCESS", new ExtensionContext())).rejects.toBeInstanceOf(AgentCancelledError);
  });
});
