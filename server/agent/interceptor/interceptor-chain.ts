import { AGENT_ERROR_CODES, AgentError, abortErrorFrom, describeError, mustPropagate } from "../errors";
import { PartialOutputTracker } from "../llm/partial-output-tracker";
import { isTerminalEvent, streamFailure, type LLMStreamEvent } from "../llm/stream-events";
import { errorResult, isLegalToolResult, type ToolResult } from "../tools/tool-result";
import { composeChain, type ChainHandler } from "./compose-chain";
import type {
  Interceptor,
  IterationInvocation,
  LlmStreamInvocation,
  ToolInvocation,
  TurnInvocation,
} from "./interceptor";
import { SCOPE_METHOD, isLiveScope, type InterceptorScope, type LiveScope } from "./interceptor-scope";

export interface InterceptorChainOptions {
  /**
   * Composed innermost in the TOOL_CALL scope, beneath every registered interceptor (the ToolExecutor puts
   * ToolTimeoutInterceptor here, so every path has the deadline and it measures only tool time).
   */
  innermostTool?: Interceptor;
}

type Built = {
  tool: (inv: ToolInvocation) => Promise<ToolResult>;
  turn: (inv: TurnInvocation) => Promise<void>;
  iteration: (inv: IterationInvocation) => Promise<void>;
  stream: (inv: LlmStreamInvocation) => AsyncIterable<LLMStreamEvent>;
};

/**
 * The registered interceptors per scope, and the onions built from them. Each scope's onion is built
 * once (on first use after a registration) and reused; registration order is execution order, index 0
 * outermost. The chain enforces the scope invariants:
 * - TOOL_CALL always yields a legal ToolResult: a generic error (from the tool or an interceptor) or an
 *   illegal value becomes an error result;
 * - AgentControlError and cancellation (AbortError) always propagate, in every scope;
 * - in LLM_STREAM any other error becomes a terminal StreamFailure event.
 */
export class InterceptorChain {
  private readonly byScope: Record<LiveScope, Interceptor[]> = { TOOL_CALL: [], TURN: [], ITERATION: [], LLM_STREAM: [] };
  private built: Built | undefined;

  constructor(private readonly options: InterceptorChainOptions = {}) {}

  register(interceptor: Interceptor, scope: InterceptorScope): this {
    if (!isLiveScope(scope)) {
      throw new AgentError(AGENT_ERROR_CODES.INTERCEPTOR_SCOPE_RESERVED, `interceptor scope ${scope} is reserved (not wired); ${interceptor.name} cannot register on it`);
    }
    if (typeof (interceptor as unknown as Record<string, unknown>)[SCOPE_METHOD[scope]] !== "function") {
      throw new AgentError(AGENT_ERROR_CODES.INTERCEPTOR_CONTRACT, `${interceptor.name} does not implement ${SCOPE_METHOD[scope]} for scope ${scope}`);
    }
    this.byScope[scope].push(interceptor);
    this.built = undefined;
    return this;
  }

  interceptors(scope: LiveScope): readonly Interceptor[] {
    return this.byScope[scope];
  }

  runToolCall(inv: ToolInvocation): Promise<ToolResult> {
    return this.build().tool(inv);
  }

  runTurn(inv: TurnInvocation): Promise<void> {
    return this.build().turn(inv);
  }

  runIteration(inv: IterationInvocation): Promise<void> {
    return this.build().iteration(inv);
  }

  openLlmStream(inv: LlmStreamInvocation): AsyncIterable<LLMStreamEvent> {
    return this.build().stream(inv);
  }

  private build(): Built {
    if (this.built) return this.built;
    const toolLayers = [...this.byScope.TOOL_CALL, ...(this.options.innermostTool ? [this.options.innermostTool] : [])];
    const tool = composeChain<ToolInvocation, Promise<ToolResult>>(
      toolLayers.map((i) => guardToolLayer(i.aroundToolCall!.bind(i))),
      runTool,
    );
    const turn = composeChain<TurnInvocation, Promise<void>>(
      this.byScope.TURN.map((i) => i.aroundTurn!.bind(i)),
      (inv) => inv.run(),
    );
    const iteration = composeChain<IterationInvocation, Promise<void>>(
      this.byScope.ITERATION.map((i) => i.aroundIteration!.bind(i)),
      (inv) => inv.run(),
    );
    const stream = composeChain<LlmStreamInvocation, AsyncIterable<LLMStreamEvent>>(
      this.byScope.LLM_STREAM.map((i) => i.aroundLlmStream!.bind(i)),
      (inv) => inv.open(inv.request, inv.signal),
    );
    this.built = { tool, turn, iteration, stream: (inv) => guardStream(stream, inv) };
    return this.built;
  }
}

/** The terminal of the tool onion: the tool itself, whose generic errors become error results. */
async function runTool(inv: ToolInvocation): Promise<ToolResult> {
  try {
    return checkedResult(inv, await inv.execute(inv.signal));
  } catch (e) {
    if (mustPropagate(e)) throw e;
    // The tool failed because its signal fired (whatever it threw): that is cancellation, not a tool error.
    if (inv.signal.aborted) throw abortErrorFrom(inv.signal);
    return errorResult(inv.call.id, inv.call.name, `Tool ${inv.call.name} failed: ${describeError(e)}`);
  }
}

/** Wraps each interceptor layer so its own failures (or illegal returns) also become error results. */
function guardToolLayer(layer: ChainHandler<ToolInvocation, Promise<ToolResult>>): ChainHandler<ToolInvocation, Promise<ToolResult>> {
  return async (inv, next) => {
    try {
      return checkedResult(inv, await layer(inv, next));
    } catch (e) {
      if (mustPropagate(e)) throw e;
      return errorResult(inv.call.id, inv.call.name, `Tool ${inv.call.name} failed in an interceptor: ${describeError(e)}`);
    }
  };
}

function checkedResult(inv: ToolInvocation, value: unknown): ToolResult {
  if (isLegalToolResult(value)) return value;
  return errorResult(inv.call.id, inv.call.name, `Tool ${inv.call.name} produced an illegal result`);
}

/** The LLM_STREAM boundary: generic errors become one StreamFailure carrying the partial output. */
async function* guardStream(
  chain: (inv: LlmStreamInvocation) => AsyncIterable<LLMStreamEvent>,
  inv: LlmStreamInvocation,
): AsyncGenerator<LLMStreamEvent> {
  const partial = new PartialOutputTracker();
  try {
    for await (const event of chain(inv)) {
      partial.observe(event);
      yield event;
      if (isTerminalEvent(event)) return;
    }
  } catch (e) {
    if (mustPropagate(e)) throw e;
    yield streamFailure(AGENT_ERROR_CODES.STREAM_FAILED, describeError(e), partial.snapshot());
  }
}
