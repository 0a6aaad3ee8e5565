import { mustPropagate } from "../errors";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor/interceptor";
import type { ToolCall } from "../llm/messages";
import { errorResult, type ToolResult } from "../tools/tool-result";
import type { ExtensionInvoker } from "./extension-invoker";
import { turnExtensionContext } from "./turn-extension-context";
import { afterRagResults, beforeRagQuery } from "./knowledge-points";
import { toolResultOr } from "./value-guards";

/**
 * The tool-call extension points, around each call in the TOOL_CALL scope (the agent's tool hooks see a
 * whole batch; these points are per call):
 * - BEFORE_TOOL_EXECUTE: a veto skips the tool; the model reads an error result saying who cancelled it;
 * - BEFORE_RAG_QUERY / AFTER_RAG_RESULTS: around a knowledge-base read or grep (knowledge-points.ts);
 * - TOOL_ERROR: the tool threw; the first repair returned (a string the model reads as the error, or a
 *   ToolResult for the call) stands in for the throw, else the chain turns the throw into an error result;
 * - REPAIRABLE_ERROR: any error result the model will read; the suggestions returned are appended to it;
 * - AFTER_TOOL_EXECUTE: rewrites the result (accepted only as a legal result for the same call).
 */
export class ExtensionToolInterceptor extends Interceptor {
  constructor(private readonly invoker: ExtensionInvoker) {
    super();
  }

  async aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
    const vetoedBy = await this.vetoedBy(inv);
    if (vetoedBy !== null) {
      const who = vetoedBy ? `the ${vetoedBy} extension` : "an extension";
      return errorResult(inv.call.id, inv.call.name, `The ${inv.call.name} call was cancelled by ${who}; it did not run.`);
    }
    const knowledge = await beforeRagQuery(this.invoker, inv);
    const run: ToolInvocation = knowledge && knowledge.call !== inv.call ? { ...inv, execute: (signal) => inv.execute(signal, knowledge.call) } : inv;
    let result = await next({ ...inv, execute: (signal) => this.reportingThrows(run, signal) });
    if (knowledge) result = await afterRagResults(this.invoker, inv, knowledge, result);
    if (result.isError) result = await this.repaired(inv, result);
    return this.transformed(inv, result);
  }

  /** Null when the call may run; else the name of the vetoing extension ("" when unknown). */
  private async vetoedBy(inv: ToolInvocation): Promise<string | null> {
    if (!this.invoker.handles("BEFORE_TOOL_EXECUTE")) return null;
    const ctx = turnExtensionContext(inv.turn, "BEFORE_TOOL_EXECUTE", { toolCall: { ...inv.call }, toolName: inv.call.name });
    return (await this.invoker.invoke("BEFORE_TOOL_EXECUTE", ctx)) === false ? (ctx.cancelledBy ?? "") : null;
  }

  private async reportingThrows(inv: ToolInvocation, signal: AbortSignal): Promise<ToolResult> {
    try {
      return await inv.execute(signal);
    } catch (e) {
      // A cancelled or timed-out tool did not fail on its own: not a TOOL_ERROR.
      if (mustPropagate(e) || signal.aborted) throw e;
      const repairs = await this.invoker.invoke("TOOL_ERROR", turnExtensionContext(inv.turn, "TOOL_ERROR", { error: e, toolCall: { ...inv.call } }));
      const repair = firstRepair(repairs, inv.call);
      if (repair) return repair;
      throw e;
    }
  }

  private async repaired(inv: ToolInvocation, result: ToolResult): Promise<ToolResult> {
    if (!this.invoker.handles("REPAIRABLE_ERROR")) return result;
    const ctx = turnExtensionContext(inv.turn, "REPAIRABLE_ERROR", { error: result.content, suggestion: result.content });
    const collected = await this.invoker.invoke("REPAIRABLE_ERROR", ctx);
    const hints = Array.isArray(collected) ? collected.filter((h): h is string => typeof h === "string" && h.length > 0) : [];
    return hints.length ? { ...result, content: [result.content, ...hints].join("\n") } : result;
  }

  private async transformed(inv: ToolInvocation, result: ToolResult): Promise<ToolResult> {
    if (!this.invoker.handles("AFTER_TOOL_EXECUTE")) return result;
    const ctx = turnExtensionContext(inv.turn, "AFTER_TOOL_EXECUTE", { toolResult: { ...result }, toolCall: { ...inv.call } });
    return toolResultOr(await this.invoker.invoke("AFTER_TOOL_EXECUTE", ctx), result);
  }
}

/** TOOL_ERROR's repair, if an extension returned one: a non-empty string, or a valid result for this call. */
function firstRepair(collected: unknown, call: ToolCall): ToolResult | null {
  if (!Array.isArray(collected)) return null;
  for (const value of collected) {
    if (typeof value === "string" && value.length > 0) return errorResult(call.id, call.name, value);
    const sentinel = errorResult(call.id, call.name, "");
    const result = toolResultOr(value, sentinel);
    if (result !== sentinel) return result;
  }
  return null;
}
