import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolInvocation } from "../../testing/tool-invocation-fixture";
import { DiskToolOverflowStore } from "../../tools/overflow/tool-overflow-store";
import { errorResult, okResult } from "../../tools/tool-result";
import { InterceptorChain } from "../interceptor-chain";
import { DEFAULT_TOOL_RESULT_MAX_CHARS, ToolResultLimitInterceptor } from "./tool-result-limit-interceptor";
import { truncateMiddle } from "./truncate-middle";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "modex-overflow-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function chainWith(limit: ToolResultLimitInterceptor): InterceptorChain {
  return new InterceptorChain().register(limit, "TOOL_CALL");
}

describe("truncateMiddle", () => {
  it("never exceeds maxChars and keeps head and tail", () => {
    const out = truncateMiddle("a".repeat(500) + "b".repeat(500), { maxChars: 100, headRatio: 0.5, marker: (n) => `[${n}]` });
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out.startsWith("a")).toBe(true);
    expect(out.endsWith("b")).toBe(true);
  });
});

describe("ToolResultLimitInterceptor", () => {
  it("defaults to 50,000 characters and leaves short results untouched", async () => {
    expect(DEFAULT_TOOL_RESULT_MAX_CHARS).toBe(50_000);
    const limit = new ToolResultLimitInterceptor({ store: new DiskToolOverflowStore(dir) });
    const content = "x".repeat(50_000);
    const result = await chainWith(limit).runToolCall(toolInvocation({ execute: async () => okResult("call_1", "echo", content) }));
    expect(result.content).toBe(content);
    expect(result.overflowPath).toBeUndefined();
  });

  it("spills an oversized output to disk and gives the model head + marker + tail + path", async () => {
    const content = `HEAD${"m".repeat(60_000)}TAIL`;
    const limit = new ToolResultLimitInterceptor({ store: new DiskToolOverflowStore(dir) });
    const result = await chainWith(limit).runToolCall(toolInvocation({ execute: async () => okResult("call_1", "echo", content) }));
    expect(result.content.length).toBeLessThanOrEqual(50_000);
    expect(result.content.startsWith("HEAD")).toBe(true);
    expect(result.content.endsWith("TAIL")).toBe(true);
    expect(result.content).toContain("characters elided");
    expect(result.overflowPath).toBeDefined();
    expect(result.content).toContain(result.overflowPath!);
    expect(await readFile(result.overflowPath!, "utf8")).toBe(content);
  });

  it("bounds error results too, keeping more of the tail", async () => {
    const content = `start${"e".repeat(2_000)}Traceback: the real error`;
    const limit = new ToolResultLimitInterceptor({ store: new DiskToolOverflowStore(dir), maxChars: 500 });
    const result = await chainWith(limit).runToolCall(toolInvocation({ execute: async () => errorResult("call_1", "echo", content) }));
    expect(result.isError).toBe(true);
    expect(result.content.length).toBeLessThanOrEqual(500);
    expect(result.content.endsWith("Traceback: the real error")).toBe(true);
    const [head, tail] = result.content.split(/\[\.\.\. .* \.\.\.\]/);
    expect(tail.length).toBeGreaterThan(head.length);
  });

  it("bounds a thrown tool error, which the chain turns into an error result", async () => {
    const limit = new ToolResultLimitInterceptor({ store: new DiskToolOverflowStore(dir), maxChars: 300 });
    const result = await chainWith(limit).runToolCall(toolInvocation({ execute: async () => { throw new Error("x".repeat(5_000)); } }));
    expect(result.isError).toBe(true);
    expect(result.content.length).toBeLessThanOrEqual(300);
  });

  it("still truncates when the spill fails, and says so", async () => {
    const limit = new ToolResultLimitInterceptor({
      store: { save: async () => { throw new Error("read-only fs"); } },
      maxChars: 200,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    const result = await chainWith(limit).runToolCall(toolInvocation({ execute: async () => okResult("call_1", "echo", "y".repeat(1_000)) }));
    expect(result.content.length).toBeLessThanOrEqual(200);
    expect(result.content).toContain("could not be saved");
    expect(result.overflowPath).toBeUndefined();
  });
});
