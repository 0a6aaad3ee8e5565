import type { NodeContext } from "../../graph/context";
import { GraphRuntime } from "../../graph/runtime";
import type { ApprovalStore } from "../approval/approval-store";
import type { TurnSnapshotStore } from "../approval/turn-snapshot";
import type { ControlChannel } from "../control/in-memory-control-channel";
import { AGENT_ERROR_CODES, AgentError } from "../errors";
import type { HookPayloads } from "../hook/hook-context";
import type { HookPoint } from "../hook/hook-point";
import type { HookRunner } from "../hook/hook-runner";
import type { InterceptorChain } from "../interceptor/interceptor-chain";
import type { ToolCall } from "../llm/messages";
import type { ReactLlmClient } from "../llm/react-llm-client";
import type { TurnState } from "../state/turn-state";
import type { ToolExecutor } from "../tools/tool-executor";
import type { ToolRegistry } from "../tools/tool-registry";
import type { AgentEvent } from "./agent-events";
import type { ContextMemory } from "../memory/context-memory";

/** Settings every LLM request of the agent carries. */
export interface RequestDefaults {
  model?: string;
  maxTokens?: number;
  temperature?: number;
}

export interface ReactGraphRuntimeDeps {
  hooks: HookRunner;
  interceptors: InterceptorChain;
  llm: ReactLlmClient;
  tools: ToolExecutor;
  registry: ToolRegistry;
  approvals: ApprovalStore;
  snapshots: TurnSnapshotStore;
  channel?: ControlChannel;
  /** Asked before a call that needs approval suspends the turn; true runs it without asking (extensions' APPROVAL_REQUIRED). */
  autoApprove?: (call: ToolCall, turn: TurnState) => Promise<boolean>;
  systemPrompt?: string;
  request?: RequestDefaults;
  /** Assembles each request's messages within a token budget (memory cleanup); none: the whole history. */
  context?: ContextMemory;
  /** Path-B cancellation for this run. */
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  now?: () => number;
}

/**
 * Bridges the agent layer into the engine for one run: the six ReAct nodes reach hooks, interceptors,
 * the model, the tools and the approval stores through `ctx.runtime`. Only beforeNode/afterNode are
 * engine-invoked (no-ops here); hooks are dispatched explicitly by the nodes at the points that define them.
 */
export class ReactGraphRuntime extends GraphRuntime {
  readonly signal: AbortSignal;
  readonly now: () => number;

  constructor(readonly deps: ReactGraphRuntimeDeps) {
    super();
    this.signal = deps.signal ?? new AbortController().signal;
    this.now = deps.now ?? Date.now;
  }

  dispatchHook<P extends Exclude<HookPoint, "FINALIZE_CONTENT">>(point: P, turn: TurnState, payload: HookPayloads[P]): Promise<void> {
    return this.deps.hooks.dispatch(point, turn, payload, { signal: this.signal });
  }

  emit(event: AgentEvent): void {
    this.deps.onEvent?.(event);
  }
}

/** The ReAct runtime of a node context; a ReAct node run without one is a wiring error. */
export function reactRuntime(ctx: NodeContext<never> | NodeContext): ReactGraphRuntime {
  const runtime = (ctx as NodeContext).runtime;
  if (runtime instanceof ReactGraphRuntime) return runtime;
  throw new AgentError(AGENT_ERROR_CODES.INVALID_STATE, "a ReAct node ran without a ReactGraphRuntime (pass it to createContext)");
}
