import { randomUUID } from "node:crypto";
import type { CompiledGraph } from "../../graph/compiled-graph";
import { isGraphInterrupt } from "../../graph/errors";
import { createNullCoordinator } from "../../graph/persistence/factories";
import { InMemoryApprovalStore, type ApprovalStore } from "../approval/approval-store";
import type { ApprovalDecision, ApprovalTransaction } from "../approval/approval-types";
import { InMemoryTurnSnapshotStore, type TurnSnapshotStore } from "../approval/turn-snapshot";
import type { ControlChannel } from "../control/in-memory-control-channel";
import { renderControlExit } from "../control/render-control-exit";
import { AGENT_ERROR_CODES, AgentError, describeError, isAbortError, isAgentControlError } from "../errors";
import type { ExtensionManager } from "../extensions/extension-manager";
import { wireExtensions, type AgentExtensionWiring } from "../extensions/extension-wiring";
import type { HookPayloads, ResumedFrom } from "../hook/hook-context";
import type { HookSpec } from "../hook/hook-runner";
import { HookRunner } from "../hook/hook-runner";
import type { Interceptor } from "../interceptor/interceptor";
import { ControlDrainInterceptor } from "../interceptor/builtin/control-drain-interceptor";
import { LlmCancelInterceptor } from "../interceptor/builtin/llm-cancel-interceptor";
import { ToolResultLimitInterceptor } from "../interceptor/builtin/tool-result-limit-interceptor";
import { ToolTimeoutInterceptor } from "../interceptor/builtin/tool-timeout-interceptor";
import type { LiveScope } from "../interceptor/interceptor-scope";
import { interruptedMessage } from "../llm/interrupted-message";
import type { LlmProvider } from "../llm/llm-provider";
import { ReactLlmClient } from "../llm/react-llm-client";
import { consoleLogger, type AgentLogger } from "../logger";
import type { AgentResult } from "../state/agent-result";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { createTurnState, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_TURNS, type TurnState } from "../state/turn-state";
import { DiskToolOverflowStore } from "../tools/overflow/tool-overflow-store";
import type { Tool } from "../tools/tool";
import { ToolExecutor } from "../tools/tool-executor";
import { ToolRegistry } from "../tools/tool-registry";
import type { AgentEvent } from "./agent-events";
import type { RequestDefaults } from "./react-graph-runtime";
import { withAgentRun } from "./agent-run-context";
import { sharedReactGraph } from "./build-react-graph";
import { closePendingToolCalls } from "./close-pending-tool-calls";
import { ReactGraphRuntime } from "./react-graph-runtime";
import { ReactNode } from "./react-node-names";
import type { ReactGraphState } from "./react-graph-state";
import { InMemorySessionMemory, type SessionMemory } from "./session-memory";
import type { ContextMemory } from "../memory/context-memory";

export interface ReactAgentOptions {
  provider: LlmProvider;
  tools?: readonly Tool[];
  /** A configured runner, or the hooks to register on a fresh one. */
  hooks?: HookRunner | readonly HookSpec[];
  /**
   * Extensions run at the agent's lifecycle points (server/agent/README.md, "Extensions"): a hook named
   * "extensions" on the runner (on a shared runner too), tool and stream interceptors after the
   * built-ins, and APPROVAL_REQUIRED before an approval suspends.
   */
  extensions?: ExtensionManager;
  /** The agent's name, given to extensions as `ctx.agentId` (a graph node's name, the chat's agent). */
  agentId?: string;
  /** Application interceptors, after the built-ins (and the extensions'), in execution order. */
  interceptors?: ReadonlyArray<{ interceptor: Interceptor; scope: LiveScope }>;
  /** Enables path-A cancellation: wires ControlDrainInterceptor and LlmCancelInterceptor. */
  channel?: ControlChannel;
  /** Enables ToolResultLimitInterceptor with this overflow directory. */
  overflowDir?: string;
  /**
   * A configured result limit (its own overflow store and size) instead of `overflowDir`'s. Either way it
   * is the outermost tool interceptor, so nothing an inner one returns (an extension's rewrite) reaches
   * the model uncapped.
   */
  resultLimit?: ToolResultLimitInterceptor;
  systemPrompt?: string;
  /** Per-request settings: a model overriding the provider's, max output tokens, temperature. */
  request?: RequestDefaults;
  /** Business iteration limit per attempt (default 25). */
  maxIterations?: number;
  /** Turn-attempt budget (default 1; graph-node turns use 3). */
  maxTurns?: number;
  toolTimeoutMs?: number;
  /** Overrides the engine's panic net (business_max × MAX_TURNS × 4 + 10); for tests of the net. */
  engineMaxIterations?: number;
  approvals?: ApprovalStore;
  snapshots?: TurnSnapshotStore;
  memory?: SessionMemory;
  /**
   * Context assembly with cleanup (server/agent/memory): keeps each request within a token budget by
   * summarizing older messages. None: every request carries the whole history.
   */
  context?: ContextMemory;
  logger?: AgentLogger;
  onEvent?: (event: AgentEvent) => void;
  now?: () => number;
}

export interface RunOptions {
  sessionId: string;
  turnId?: string;
  /**
   * Path-B cancellation: aborting rejects run() with an AbortError. The turn's nodes stop where they are;
   * the exit hooks still fire (AFTER_GRAPH, FINALLY_GRAPH with the error; extensions see the end a Stop has).
   */
  signal?: AbortSignal;
}

export type AgentRunOutcome =
  | { status: "finished"; turnId: string; result: AgentResult }
  | { status: "suspended"; turnId: string; transaction: ApprovalTransaction };

/**
 * The ReAct agent: the six-node graph plus the graph-level lifecycle around each run() call —
 * BEFORE_GRAPH on entry, AFTER_GRAPH on every exit, FINALLY_GRAPH in the finally block (result null on
 * the suspend leg). Every AgentControlError, from any layer, is rendered here by the one control-exit
 * handler; a cancelled stream's partial output is kept as an interrupted message.
 */
export class ReactAgent {
  readonly graph: CompiledGraph<ReactGraphState>;
  readonly hooks: HookRunner;
  readonly registry: ToolRegistry;
  readonly approvals: ApprovalStore;
  readonly snapshots: TurnSnapshotStore;
  readonly memory: SessionMemory;
  private readonly executor: ToolExecutor;
  private readonly llm: ReactLlmClient;
  private readonly maxIterations: number;
  private readonly maxTurns: number;
  private readonly extensions: AgentExtensionWiring | undefined;

  constructor(private readonly options: ReactAgentOptions) {
    this.maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
    this.graph = sharedReactGraph({ maxIterations: this.maxIterations, maxTurns: this.maxTurns, engineMaxIterations: options.engineMaxIterations });
    this.hooks = hookRunnerFrom(options);
    this.extensions = options.extensions ? wireExtensions(options.extensions, { agentId: options.agentId }) : undefined;
    if (this.extensions) this.hooks.register(this.extensions.hook);
    this.registry = new ToolRegistry(options.tools ?? []);
    this.approvals = options.approvals ?? new InMemoryApprovalStore();
    this.snapshots = options.snapshots ?? new InMemoryTurnSnapshotStore();
    this.memory = options.memory ?? new InMemorySessionMemory();
    this.executor = new ToolExecutor({
      registry: this.registry,
      interceptors: [...builtinInterceptors(options), ...(this.extensions?.interceptors ?? []), ...(options.interceptors ?? [])],
      timeout: new ToolTimeoutInterceptor({ timeoutMs: options.toolTimeoutMs }),
    });
    this.llm = new ReactLlmClient({ provider: options.provider, interceptors: this.executor.chain, channel: options.channel });
  }

  /** Runs one logical turn for `input`. */
  async run(input: string, options: RunOptions): Promise<AgentRunOutcome> {
    const turn = createTurnState({
      sessionId: options.sessionId,
      turnId: options.turnId ?? randomUUID(),
      messages: await this.memory.load(options.sessionId),
      maxIterations: this.maxIterations,
      maxTurns: this.maxTurns,
    });
    return this.execute({ turn, input, resumedFrom: null, signal: options.signal });
  }

  /**
   * Re-enters a suspended turn with an approval decision (called by ApprovalResumer, which validated it
   * and dispatched AFTER_APPROVAL). The same attempt continues at TOOL; the model is not called again.
   */
  async resumeTurn(args: { turn: TurnState; resumeTarget: string | null; decision: ApprovalDecision; signal?: AbortSignal }): Promise<AgentRunOutcome> {
    return this.execute({ turn: args.turn, input: "", resumedFrom: "approval", decision: args.decision, resumeTarget: args.resumeTarget, signal: args.signal });
  }

  /**
   * Re-enters a turn from its iteration checkpoint (CheckpointHook) after the process that ran it died:
   * the same attempt continues with its next model call on the messages saved, so the tool calls before
   * the checkpoint do not run again. BEFORE_GRAPH sees `resumed: true`; START_NODE_TURN does not run.
   */
  async resumeCheckpoint(args: { turn: TurnState; signal?: AbortSignal }): Promise<AgentRunOutcome> {
    return this.execute({ turn: args.turn, input: "", resumedFrom: "checkpoint", resumeTarget: ReactNode.LLM, signal: args.signal });
  }

  private execute(args: ExecuteArgs): Promise<AgentRunOutcome> {
    return withAgentRun({ sessionId: args.turn.sessionId, turnId: args.turn.turnId, resumed: args.resumedFrom !== null }, () => this.executeInContext(args));
  }

  private async executeInContext(args: ExecuteArgs): Promise<AgentRunOutcome> {
    const { turn } = args;
    const runtime = this.runtime(args.signal);
    let result: AgentResult | null = null;
    let error: unknown;
    let transaction: ApprovalTransaction | undefined;
    try {
      await runtime.dispatchHook("BEFORE_GRAPH", turn, { input: args.input, resumed: args.resumedFrom !== null, resumedFrom: args.resumedFrom });
      await this.executor.chain.runTurn({ turn, run: () => this.runGraph({ ...args, runtime }) });
      result = turn.agentResult ?? null;
    } catch (e) {
      if (isGraphInterrupt(e)) transaction = turn.pendingApproval;
      else if (isAgentControlError(e)) result = this.renderControlExit(e, turn);
      else error = e;
    } finally {
      await this.graphExitHooks({ runtime, turn, result, error });
    }
    if (error !== undefined) throw error;
    if (transaction) return { status: "suspended", turnId: turn.turnId, transaction };
    await this.memory.save(turn.sessionId, turn.messages);
    return { status: "finished", turnId: turn.turnId, result: result! };
  }

  private async runGraph(args: { turn: TurnState; input: string; decision?: ApprovalDecision; resumeTarget?: string | null; runtime: ReactGraphRuntime }): Promise<void> {
    const ctx = this.graph.createContext({
      input: args.input,
      state: { turn: args.turn, resumeTarget: args.resumeTarget ?? null },
      runtime: args.runtime,
      // The ReAct graph persists nothing itself: a per-turn Null coordinator (the turn's durability is the
      // TurnSnapshot; node-invocation persistence belongs to the business-graph layer).
      coordinator: createNullCoordinator(),
      instanceId: `react-${args.turn.turnId}`,
      signal: args.runtime.signal,
    });
    // A decision resumes at TOOL; a checkpoint at LLM, with no answer to hand on (the LLM node reads none).
    const run = args.decision || args.resumeTarget ? await this.graph.resume(ctx, args.decision ?? null) : await this.graph.run(ctx, "fresh");
    if (!run.reachedEnd || !args.turn.agentResult) {
      throw new AgentError(AGENT_ERROR_CODES.INVALID_STATE, "the ReAct graph ended without reaching END");
    }
  }

  private renderControlExit(error: Parameters<typeof renderControlExit>[0], turn: TurnState): AgentResult {
    const partial = turn.custom.pop(TurnCustomKeys.INTERRUPTED_PARTIAL);
    if (partial) turn.messages.push(interruptedMessage(partial));
    closePendingToolCalls(turn, `${error.stopReason}: ${error.message}`);
    const result = renderControlExit(error, turn);
    turn.agentResult = result;
    return result;
  }

  /**
   * AFTER_GRAPH, then FINALLY_GRAPH whatever AFTER_GRAPH did. The turn's outcome is already decided here,
   * so a control error raised by these hooks cannot change it: it is logged and dropped.
   */
  private async graphExitHooks(exit: { runtime: ReactGraphRuntime; turn: TurnState; result: AgentResult | null; error: unknown }): Promise<void> {
    const payload = exit.error === undefined ? { result: exit.result } : { result: exit.result, error: exit.error };
    try {
      try {
        await this.exitHook(exit, "AFTER_GRAPH", payload);
      } finally {
        await this.exitHook(exit, "FINALLY_GRAPH", payload);
      }
    } catch (e) {
      // An aborted run must reject with its abort: callers (the chat) tell an abort from a failure by it.
      if (!isAbortError(exit.error)) throw e;
      this.logger.warn(`an exit hook of an aborted run failed (the abort stands): ${describeError(e)}`, { turnId: exit.turn.turnId });
    }
  }

  private async exitHook(
    exit: { runtime: ReactGraphRuntime; turn: TurnState },
    point: "AFTER_GRAPH" | "FINALLY_GRAPH",
    payload: HookPayloads["FINALLY_GRAPH"],
  ): Promise<void> {
    try {
      await exit.runtime.dispatchHook(point, exit.turn, payload);
    } catch (e) {
      if (!isAgentControlError(e)) throw e;
      this.logger.warn(`${e.name} raised at ${point} ignored: the turn had already ended`, { turnId: exit.turn.turnId });
    }
  }

  private get logger(): AgentLogger {
    return this.options.logger ?? consoleLogger;
  }

  private runtime(signal: AbortSignal | undefined): ReactGraphRuntime {
    return new ReactGraphRuntime({
      hooks: this.hooks,
      interceptors: this.executor.chain,
      llm: this.llm,
      tools: this.executor,
      registry: this.registry,
      approvals: this.approvals,
      snapshots: this.snapshots,
      channel: this.options.channel,
      autoApprove: this.extensions?.autoApprove,
      systemPrompt: this.options.systemPrompt,
      request: this.options.request,
      context: this.options.context,
      signal,
      onEvent: this.options.onEvent,
      now: this.options.now,
    });
  }
}

interface ExecuteArgs {
  turn: TurnState;
  input: string;
  resumedFrom: ResumedFrom | null;
  decision?: ApprovalDecision;
  resumeTarget?: string | null;
  signal?: AbortSignal;
}

function hookRunnerFrom(options: ReactAgentOptions): HookRunner {
  if (options.hooks instanceof HookRunner) return options.hooks;
  const runner = new HookRunner({ logger: options.logger });
  for (const spec of options.hooks ?? []) runner.register(spec);
  return runner;
}

/** The built-in chain, in the bot runtime's order: ToolResultLimit → ControlDrain → LlmCancel. */
function builtinInterceptors(options: ReactAgentOptions): Array<{ interceptor: Interceptor; scope: LiveScope }> {
  const list: Array<{ interceptor: Interceptor; scope: LiveScope }> = [];
  const limit = options.resultLimit ?? (options.overflowDir ? new ToolResultLimitInterceptor({ store: new DiskToolOverflowStore(options.overflowDir), logger: options.logger }) : undefined);
  if (limit) list.push({ interceptor: limit, scope: "TOOL_CALL" });
  if (options.channel) {
    list.push({ interceptor: new ControlDrainInterceptor(options.channel), scope: "TOOL_CALL" });
    list.push({ interceptor: new LlmCancelInterceptor(options.channel), scope: "LLM_STREAM" });
  }
  return list;
}
