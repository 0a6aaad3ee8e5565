import { describe, expect, it } from "vitest";
import { DEFAULT_INVOCATION_CONFIGS } from "./default-invocation-configs";
import { ALL_EXTENSION_POINTS, EXTENSION_METHOD, EXTENSION_POINT_GROUP } from "./extension-point";

/** The spec's reference tables: point → [mode, transform key]. */
const SPEC_TABLE = {
  BEFORE_MESSAGE_PROCESS: ["COLLECT"],
  BEFORE_PROMPT_BUILD: ["COLLECT"],
  AFTER_PROMPT_BUILD: ["TRANSFORM", "prompt"],
  BEFORE_LLM_CALL: ["CANCELLABLE"],
  DURING_LLM_STREAMING: ["TRANSFORM", "chunk"],
  AFTER_LLM_RESPONSE: ["TRANSFORM", "response"],
  SYSTEM_PROMPT_READY: ["TRANSFORM", "systemPrompt"],
  FULL_PROMPT_READY: ["TRANSFORM", "prompt"],
  BEFORE_TOOL_PARSE: ["TRANSFORM", "llmResponse"],
  BEFORE_TOOL_EXECUTE: ["CANCELLABLE"],
  AFTER_TOOL_EXECUTE: ["TRANSFORM", "toolResult"],
  TOOL_ERROR: ["COLLECT"],
  BEFORE_CONTINUATION: ["CANCELLABLE"],
  AFTER_CONTINUATION: ["TRANSFORM", "response"],
  LOOP_COMPLETE: ["TRANSFORM", "finalResponse"],
  REPAIRABLE_ERROR: ["COLLECT"],
  CRITICAL_ERROR: ["COLLECT"],
  BEFORE_RESPONSE_SEND: ["TRANSFORM", "response"],
  AFTER_RESPONSE_SEND: ["COLLECT"],
  SESSION_CREATE: ["COLLECT"],
  SESSION_DESTROY: ["COLLECT"],
  BEFORE_RAG_QUERY: ["TRANSFORM", "query"],
  AFTER_RAG_RESULTS: ["TRANSFORM", "results"],
  APPROVAL_REQUIRED: ["UNTIL_HANDLED"],
  APPROVAL_RECEIVED: ["COLLECT"],
} as const;

describe("ExtensionPoint", () => {
  it("has the spec's 25 points", () => {
    expect(ALL_EXTENSION_POINTS).toHaveLength(25);
    expect([...ALL_EXTENSION_POINTS].sort()).toEqual(Object.keys(SPEC_TABLE).sort());
  });

  it("groups them as the spec's reference tables do", () => {
    const sizes: Record<string, number> = {};
    for (const point of ALL_EXTENSION_POINTS) sizes[EXTENSION_POINT_GROUP[point]] = (sizes[EXTENSION_POINT_GROUP[point]] ?? 0) + 1;
    expect(sizes).toEqual({
      message_preparation: 3,
      llm_interaction: 3,
      prompt_pipeline: 2,
      tool_execution: 4,
      continuation_loop: 3,
      error_handling: 2,
      response: 2,
      session_lifecycle: 2,
      knowledge: 2,
      approval: 2,
    });
  });

  it("derives each method name from its point: on + the point in camel case", () => {
    for (const point of ALL_EXTENSION_POINTS) {
      const camel = point.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
      expect(EXTENSION_METHOD[point]).toBe(`on${camel}`);
    }
  });

  it("gives every point the spec's default invocation mode and transform key", () => {
    for (const point of ALL_EXTENSION_POINTS) {
      const [mode, key] = SPEC_TABLE[point] as readonly [string, string?];
      const config = DEFAULT_INVOCATION_CONFIGS[point];
      expect({ point, mode: config.mode, key: config.mode === "TRANSFORM" ? config.transformKey : undefined }).toEqual({ point, mode, key });
    }
  });

  it("type-checks every TRANSFORM default (the spec's expected_type)", () => {
    for (const point of ALL_EXTENSION_POINTS) {
      const config = DEFAULT_INVOCATION_CONFIGS[point];
      if (config.mode === "TRANSFORM") expect(config.expectedType, point).toBeDefined();
    }
  });
});
