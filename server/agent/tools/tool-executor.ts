import { AGENT_ERROR_CODES, describeError } from "../errors";
import type { Interceptor } from "../interceptor/interceptor";
import { InterceptorChain } from "../interceptor/interceptor-chain";
import { ToolTimeoutInterceptor } from "../interceptor/builtin/tool-timeout-interceptor";
import type { LiveScope } from "../interceptor/interceptor-scope";
import type { ToolCall } from "../llm/messages";
import type { TurnState } from "../state/turn-state";
import type { ToolOutput } from "./tool";
import type { ToolRegistry } from "./tool-registry";
import { errorResult, okResult, type ToolResult } from "./tool-result";

export interface ToolExecutorOptions {
  registry: ToolRegistry;
  /** The application's interceptors, in execution order (index 0 outermost). */
  interceptors?: ReadonlyArray<{ interceptor: Interceptor; scope: LiveScope }>;
  /** The innermost deadline; defaults to a ToolTimeoutInterceptor with the 540 s default. */
  timeout?: ToolTimeoutInterceptor;
}

/**
 * Runs one tool call through the TOOL_CALL onion. Composes ToolTimeoutInterceptor innermost, so every
 * ReAct path has the deadline without application wiring. Unknown tools and arguments that fail the
 * tool's schema come back as error results the model can read, like any other tool error.
 */
export class ToolExecutor {
  readonly chain: InterceptorChain;

  constructor(private readonly options: ToolExecutorOptions) {
    this.chain = new InterceptorChain({ innermostTool: options.timeout ?? new ToolTimeoutInterceptor() });
    for (const { interceptor, scope } of options.interceptors ?? []) this.chain.register(interceptor, scope);
  }

  execute(call: ToolCall, turn: TurnState, signal: AbortSignal = new AbortController().signal): Promise<ToolResult> {
    return this.chain.runToolCall({ call, turn, signal, execute: (sig, rewritten) => this.runTool(rewritten ?? call, turn, sig) });
  }

  private async runTool(call: ToolCall, turn: TurnState, signal: AbortSignal): Promise<ToolResult> {
    const tool = this.options.registry.get(call.name);
    if (!tool) return errorResult(call.id, call.name, `${AGENT_ERROR_CODES.TOOL_NOT_FOUND}: no tool named ${call.name}`);
    const args = parseArguments(call.arguments);
    if (!args.ok) return errorResult(call.id, call.name, `${AGENT_ERROR_CODES.TOOL_ARGS_INVALID}: arguments are not valid JSON (${args.error})`);
    const parsed = tool.args.safeParse(args.value);
    if (!parsed.success) {
      return errorResult(call.id, call.name, `${AGENT_ERROR_CODES.TOOL_ARGS_INVALID}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
    }
    const output = await tool.execute(parsed.data, { signal, callId: call.id, sessionId: turn.sessionId, turnId: turn.turnId, custom: turn.custom });
    return toResult(call, output);
  }
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: text.trim() === "" ? {} : JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: describeError(e) };
  }
}

function toResult(call: ToolCall, output: ToolOutput): ToolResult {
  if (typeof output === "string") return okResult(call.id, call.name, output);
  return output.isError ? errorResult(call.id, call.name, output.content) : okResult(call.id, call.name, output.content);
}
