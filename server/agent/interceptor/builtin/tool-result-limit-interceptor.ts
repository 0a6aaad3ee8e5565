import { describeError } from "../../errors";
import { consoleLogger, type AgentLogger } from "../../logger";
import type { ToolOverflowStore } from "../../tools/overflow/tool-overflow-store";
import type { ToolResult } from "../../tools/tool-result";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor";
import { truncateMiddle } from "./truncate-middle";

export const DEFAULT_TOOL_RESULT_MAX_CHARS = 50_000;

export interface ToolResultLimitOptions {
  store: ToolOverflowStore;
  maxChars?: number;
  logger?: AgentLogger;
}

/**
 * Caps what the model sees of a tool's output at `maxChars` (50,000 by default). The full output is
 * spilled to the overflow store; the model gets head + elision marker + tail + the path. Error results
 * are bounded too, keeping more of the tail, where errors and stack traces cluster.
 */
export class ToolResultLimitInterceptor extends Interceptor {
  private readonly maxChars: number;

  constructor(private readonly options: ToolResultLimitOptions) {
    super();
    this.maxChars = options.maxChars ?? DEFAULT_TOOL_RESULT_MAX_CHARS;
  }

  async aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
    const result = await next(inv);
    if (result.content.length <= this.maxChars) return result;
    const overflowPath = await this.spill(inv.turn.sessionId, result);
    const where = overflowPath ? `; full output saved to ${overflowPath}` : "; full output could not be saved";
    const content = truncateMiddle(result.content, {
      maxChars: this.maxChars,
      headRatio: result.isError ? 0.2 : 0.6,
      marker: (elided) => `\n\n[... ${elided} characters elided${where} ...]\n\n`,
    });
    return { ...result, content, ...(overflowPath ? { overflowPath } : {}) };
  }

  private async spill(sessionId: string, result: ToolResult): Promise<string | undefined> {
    try {
      return await this.options.store.save({ sessionId, callId: result.callId, toolName: result.name, content: result.content });
    } catch (e) {
      (this.options.logger ?? consoleLogger).warn(`tool overflow spill failed: ${describeError(e)}`, { tool: result.name });
      return undefined;
    }
  }
}
