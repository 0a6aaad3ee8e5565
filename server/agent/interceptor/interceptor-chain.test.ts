import { describe, expect, it } from "vitest";
import { AgentCancelledError, LoopDetectedError, isAgentError, isInterceptorScopeError } from "../errors";
import type { LLMStreamEvent } from "../llm/stream-events";
import { testTurn } from "../testing/turn-fixture";
import { toolInvocation } from "../testing/tool-invocation-fixture";
import { isLegalToolResult, okResult, type ToolResult } from "../tools/tool-result";
import {
  Interceptor,
  type IterationInvocation,
  type LlmStreamInvocation,
  type NextIteration,
  type NextLlmStream,
  type NextToolCall,
  type NextTurn,
  type ToolInvocation,
  type TurnInvocation,
} from "./interceptor";
import { InterceptorChain } from "./interceptor-chain";
import { InterceptorScope } from "./interceptor-scope";

class Tagging extends Interceptor {
  constructor(
    private readonly tag: string,
    private readonly log: string[],
  ) {
    super();
  }
  async aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
    this.log.push(`>${this.tag}`);
    const r = await next(inv);
    this.log.push(`<${this.tag}`);
    return { ...r, content: `${r.content}+${this.tag}` };
  }
  async aroundTurn(inv: TurnInvocation, next: NextTurn): Promise<void> {
    this.log.push(`turn ${this.tag}`);
    await next(inv);
  }
  async aroundIteration(inv: IterationInvocation, next: NextIteration): Promise<void> {
    this.log.push(`iteration ${this.tag} ${inv.iteration}`);
    await next(inv);
  }
}

class Throwing extends Interceptor {
  constructor(private readonly error: unknown) {
    super();
  }
  async aroundToolCall(): Promise<ToolResult> {
    throw this.error;
  }
  // eslint-disable-next-line require-yield
  async *aroundLlmStream(): AsyncIterable<LLMStreamEvent> {
    throw this.error;
  }
}

function streamOf(events: LLMStreamEvent[], thenThrow?: unknown): LlmStreamInvocation {
  return {
    turn: testTurn(),
    request: { messages: [], tools: [] },
    signal: new AbortController().signal,
    open: async function* () {
      yield* events;
      if (thenThrow) throw thenThrow;
    },
  };
}

async function collect(stream: AsyncIterable<LLMStreamEvent>): Promise<LLMStreamEvent[]> {
  const out: LLMStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("InterceptorChain registration", () => {
  it("rejects the four reserved scopes", () => {
    const chain = new InterceptorChain();
    for (const scope of ["AGENT_RUN", "LLM_CALL", "PIPELINE_STEP", "POOL_TASK"] as const) {
      expect(() => chain.register(new Tagging("x", []), InterceptorScope[scope])).toThrow(expect.toSatisfy(isInterceptorScopeError));
    }
  });

  it("rejects an interceptor that does not implement the scope's method", () => {
    class ToolOnly extends Interceptor {
      aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
        return next(inv);
      }
    }
    expect(() => new InterceptorChain().register(new ToolOnly(), "LLM_STREAM")).toThrow(expect.toSatisfy(isAgentError));
  });
});

describe("InterceptorChain onion", () => {
  it("registration order is execution order, index 0 outermost", async () => {
    const log: string[] = [];
    const chain = new InterceptorChain().register(new Tagging("a", log), "TOOL_CALL").register(new Tagging("b", log), "TOOL_CALL");
    const result = await chain.runToolCall(toolInvocation());
    expect(log).toEqual([">a", ">b", "<b", "<a"]);
    expect(result.content).toBe("ok+b+a");
  });

  it("the innermost tool interceptor sits beneath every registered one", async () => {
    const log: string[] = [];
    const chain = new InterceptorChain({ innermostTool: new Tagging("inner", log) }).register(new Tagging("outer", log), "TOOL_CALL");
    await chain.runToolCall(toolInvocation());
    expect(log).toEqual([">outer", ">inner", "<inner", "<outer"]);
  });

  it("wraps turns and iterations", async () => {
    const log: string[] = [];
    const chain = new InterceptorChain().register(new Tagging("a", log), "TURN").register(new Tagging("a", log), "ITERATION");
    await chain.runTurn({ turn: testTurn(), run: async () => void log.push("turn body") });
    await chain.runIteration({ turn: testTurn(), iteration: 2, run: async () => void log.push("iteration body") });
    expect(log).toEqual(["turn a", "turn body", "iteration a 2", "iteration body"]);
  });

  it("builds each scope's onion once and reuses it until a registration changes it", async () => {
    const log: string[] = [];
    const chain = new InterceptorChain().register(new Tagging("a", log), "TOOL_CALL");
    await chain.runToolCall(toolInvocation());
    chain.register(new Tagging("b", log), "TOOL_CALL");
    const result = await chain.runToolCall(toolInvocation());
    expect(result.content).toBe("ok+b+a");
  });
});

describe("TOOL_CALL invariants", () => {
  it("a throwing tool becomes an error ToolResult", async () => {
    const result = await new InterceptorChain().runToolCall(toolInvocation({ execute: async () => { throw new Error("disk full"); } }));
    expect(isLegalToolResult(result)).toBe(true);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("disk full");
  });

  it("a throwing interceptor becomes an error ToolResult and outer layers still see a result", async () => {
    const log: string[] = [];
    const chain = new InterceptorChain().register(new Tagging("outer", log), "TOOL_CALL").register(new Throwing(new Error("bad layer")), "TOOL_CALL");
    const result = await chain.runToolCall(toolInvocation());
    expect(result.isError).toBe(true);
    expect(result.content).toContain("bad layer");
    expect(log).toEqual([">outer", "<outer"]);
  });

  it("an illegal value from the tool becomes an error ToolResult", async () => {
    const result = await new InterceptorChain().runToolCall(toolInvocation({ execute: async () => ({ nope: 1 }) as unknown as ToolResult }));
    expect(result.isError).toBe(true);
    expect(isLegalToolResult(result)).toBe(true);
  });

  it("AgentControlError propagates from a tool and from an interceptor", async () => {
    const loop = new LoopDetectedError("loop");
    await expect(new InterceptorChain().runToolCall(toolInvocation({ execute: async () => { throw loop; } }))).rejects.toBe(loop);
    const cancel = new AgentCancelledError("stop");
    await expect(new InterceptorChain().register(new Throwing(cancel), "TOOL_CALL").runToolCall(toolInvocation())).rejects.toBe(cancel);
  });

  it("cancellation (AbortError) propagates", async () => {
    const abort = new DOMException("aborted", "AbortError");
    await expect(new InterceptorChain().runToolCall(toolInvocation({ execute: async () => { throw abort; } }))).rejects.toBe(abort);
  });
});

describe("LLM_STREAM invariants", () => {
  it("passes events through and stops at the first terminal event", async () => {
    const events = await collect(
      new InterceptorChain().openLlmStream(streamOf([{ type: "text_delta", text: "hi" }, { type: "finish", reason: "stop" }, { type: "text_delta", text: "late" }])),
    );
    expect(events.map((e) => e.type)).toEqual(["text_delta", "finish"]);
  });

  it("a provider error becomes one StreamFailure carrying the partial output", async () => {
    const events = await collect(new InterceptorChain().openLlmStream(streamOf([{ type: "text_delta", text: "par" }], new Error("socket reset"))));
    expect(events).toHaveLength(2);
    const last = events[1];
    expect(last.type).toBe("stream_failure");
    if (last.type === "stream_failure") {
      expect(last.error.message).toContain("socket reset");
      expect(last.partial.content).toBe("par");
    }
  });

  it("an interceptor error becomes a StreamFailure", async () => {
    const events = await collect(new InterceptorChain().register(new Throwing(new Error("bad")), "LLM_STREAM").openLlmStream(streamOf([])));
    expect(events.map((e) => e.type)).toEqual(["stream_failure"]);
  });

  it("AgentControlError and cancellation propagate out of the stream", async () => {
    const cancel = new AgentCancelledError("stop");
    await expect(collect(new InterceptorChain().openLlmStream(streamOf([], cancel)))).rejects.toBe(cancel);
    const abort = new DOMException("aborted", "AbortError");
    await expect(collect(new InterceptorChain().openLlmStream(streamOf([], abort)))).rejects.toBe(abort);
  });

  it("interceptors wrap the stream, index 0 outermost", async () => {
    class Upper extends Interceptor {
      async *aroundLlmStream(inv: LlmStreamInvocation, next: NextLlmStream): AsyncIterable<LLMStreamEvent> {
        for await (const e of next(inv)) yield e.type === "text_delta" ? { ...e, text: e.text.toUpperCase() } : e;
      }
    }
    class Exclaim extends Interceptor {
      async *aroundLlmStream(inv: LlmStreamInvocation, next: NextLlmStream): AsyncIterable<LLMStreamEvent> {
        for await (const e of next(inv)) yield e.type === "text_delta" ? { ...e, text: `${e.text}!` } : e;
      }
    }
    const events = await collect(
      new InterceptorChain().register(new Exclaim(), "LLM_STREAM").register(new Upper(), "LLM_STREAM").openLlmStream(streamOf([{ type: "text_delta", text: "a" }, { type: "finish", reason: "stop" }])),
    );
    expect(events[0]).toEqual({ type: "text_delta", text: "A!" });
  });
});

describe("ToolResult helpers", () => {
  it("okResult is legal", () => {
    expect(isLegalToolResult(okResult("c", "n", "x"))).toBe(true);
  });
});
