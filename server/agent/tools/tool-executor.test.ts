import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { InMemoryControlChannel } from "../control/in-memory-control-channel";
import { AgentCancelledError } from "../errors";
import { ControlDrainInterceptor } from "../interceptor/builtin/control-drain-interceptor";
import { ToolTimeoutInterceptor } from "../interceptor/builtin/tool-timeout-interceptor";
import { testTurn } from "../testing/turn-fixture";
import { untilAborted } from "../testing/tool-invocation-fixture";
import { defineTool } from "./tool";
import { ToolExecutor } from "./tool-executor";
import { ToolRegistry } from "./tool-registry";

afterEach(() => {
  vi.useRealTimers();
});

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  args: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const failing = defineTool({ name: "failing", description: "", args: z.object({}), execute: () => ({ content: "nope", isError: true }) });
const throwing = defineTool({ name: "throwing", description: "", args: z.object({}), execute: () => { throw new Error("kaput"); } });
const hanging = defineTool({ name: "hanging", description: "", args: z.object({}), execute: (_args, ctx) => untilAborted(ctx.signal) });

const registry = new ToolRegistry([add, failing, throwing, hanging]);
const call = (name: string, args: string) => ({ id: "c1", name, arguments: args });

describe("ToolExecutor", () => {
  it("validates arguments with the tool's schema and runs it", async () => {
    const result = await new ToolExecutor({ registry }).execute(call("add", '{"a":2,"b":3}'), testTurn());
    expect(result).toEqual({ callId: "c1", name: "add", content: "5", isError: false });
  });

  it("unknown tools, bad JSON and schema violations come back as error results", async () => {
    const executor = new ToolExecutor({ registry });
    expect((await executor.execute(call("nope", "{}"), testTurn())).content).toContain("TOOL_NOT_FOUND");
    expect((await executor.execute(call("add", "{"), testTurn())).content).toContain("TOOL_ARGS_INVALID");
    const invalid = await executor.execute(call("add", '{"a":"x"}'), testTurn());
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toContain("a:");
  });

  it("a tool's own error output and a thrown error both become error results", async () => {
    const executor = new ToolExecutor({ registry });
    expect(await executor.execute(call("failing", "{}"), testTurn())).toMatchObject({ isError: true, content: "nope" });
    expect(await executor.execute(call("throwing", "{}"), testTurn())).toMatchObject({ isError: true, content: expect.stringContaining("kaput") });
  });

  it("composes the timeout innermost by default: a hung tool is aborted and the result says <tool_timeout>", async () => {
    vi.useFakeTimers();
    const pending = new ToolExecutor({ registry, timeout: new ToolTimeoutInterceptor({ timeoutMs: 1_000 }) }).execute(call("hanging", "{}"), testTurn());
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await pending).content).toContain("<tool_timeout>");
  });

  it("runs application interceptors outside the timeout", async () => {
    const channel = new InMemoryControlChannel();
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" });
    const executor = new ToolExecutor({ registry, interceptors: [{ interceptor: new ControlDrainInterceptor(channel), scope: "TOOL_CALL" }] });
    await expect(executor.execute(call("add", '{"a":1,"b":1}'), testTurn({ turnId: "t1" }))).rejects.toBeInstanceOf(AgentCancelledError);
    expect(executor.chain.interceptors("TOOL_CALL")).toHaveLength(1);
  });
});
