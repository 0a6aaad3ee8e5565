import type { ControlChannel } from "@/server/agent/control/in-memory-control-channel";
import type { ExtensionManager } from "@/server/agent/extensions/extension-manager";
import type { NodeAgentParts } from "@/server/agent/graph-node/agent-node";
import { resolveAgentNodeConfig, withApprovalPolicy, type AgentNodeConfig, type NamedAgentDefaults } from "@/server/agent/graph-node/agent-node-config";
import type { ApprovalStore } from "@/server/agent/approval/approval-store";
import type { TurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import { TRAINING_DATA_PRIORITY, TrainingDataHook } from "@/server/agent/hook/builtin/training-data-hook";
import { CurrentTimeHook } from "@/server/agent/hook/builtin/current-time-hook";
import { LengthGuardHook } from "@/server/agent/hook/builtin/length-guard-hook";
import { LoopDetectionHook } from "@/server/agent/hook/builtin/loop-detection-hook";
import { TODO_CONTINUATION_PRIORITY, TodoContinuationHook } from "@/server/agent/hook/builtin/todo-continuation-hook";
import { HookRunner, type HookSpec } from "@/server/agent/hook/hook-runner";
import { ToolResultLimitInterceptor } from "@/server/agent/interceptor/builtin/tool-result-limit-interceptor";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { AgentEvent } from "@/server/agent/react/agent-events";
import { ReactAgent } from "@/server/agent/react/react-agent";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import { createSpanHooks, type SpanTier } from "@/server/agent/trace/create-span-hooks";
import type { SpanSink } from "@/server/agent/trace/span-record";
import { DiskToolOverflowStore } from "@/server/agent/tools/overflow/tool-overflow-store";
import type { Tool } from "@/server/agent/tools/tool";
import { ContextMemory } from "@/server/agent/memory/context-memory";
import type { ContextSummaryStore } from "@/server/agent/memory/context-summary";
import type { MemoryConfig } from "@/server/agent/memory/memory-config";
import { MemoryHookRunner } from "@/server/agent/memory/memory-hook-runner";
import { MemoryTraceHook } from "@/server/agent/memory/memory-trace-hook";
import { TodoReorientationHook } from "@/server/agent/memory/todo-reorientation-hook";
import { SpanWriter } from "@/server/agent/trace/span-writer";
import type { AgentDefinition } from "./agent-definition";
import type { McpServers } from "./mcp-servers";
import type { McpToolsHook } from "./mcp-tools-hook";
import type { ToolCatalog } from "./tool-catalog";

/** The chat's default turn budget: one attempt per message (a graph node's is 3). */
const CHAT_MAX_TURNS = 1;

export interface AgentAssemblyDeps {
  /** The model of an agent (`settings.model`, else the configured one); `node` is set for graph nodes. */
  provider: (args: { settings: AgentNodeConfig; node: string | null }) => LlmProvider;
  catalog: ToolCatalog;
  /** Where a tool result over its agent's limit is saved in full; no limit without it. */
  /**
   * Where an agent's oversized tool results go, per session (`node`: the agent node's name, null in
   * the chat): with what they belong to, so they are deleted with it (tool-overflow-dirs.ts). None: no limit.
   */
  overflowDir?: (owner: { sessionId: string; node: string | null }) => string;
  /**
   * Where every agent's spans go (GenAI conventions): the `agent_spans` table in the app, mirrored to OTLP
   * when an exporter is installed. `tier` is the default (MODEX_TRACE_TIER); a definition's
   * `tracing.tier` overrides it for its agent (`tierOf` finds it for a graph node's named agent).
   */
  spans?: { sink: SpanSink; model: string | null; tier?: SpanTier; tierOf?: (agent: string) => SpanTier | undefined };
  /** The app's extensions (AppExtensions.manager), run by every agent built here: chat and graph nodes. */
  extensions?: ExtensionManager;
  /** The configured MCP servers: the `<server>__<tool>` names among an agent's tools are attached when it runs. */
  mcp?: McpServers;
}

/** What the chat adds to an agent: its control channel, memory and event sink. */
export interface ChatAgentRuntime {
  channel: ControlChannel;
  memory: SessionMemory;
  /** Where memory cleanup keeps each chat's summary (the chat store); none: for the turn only. */
  summaries?: ContextSummaryStore;
  onEvent: (event: AgentEvent) => void;
  now?: () => number;
}

interface BuildArgs {
  settings: AgentNodeConfig;
  node: string | null;
  tools: Tool[];
  hooks: HookSpec[];
  systemPrompt: string;
  memory?: SessionMemory;
  channel?: ControlChannel;
  approvals?: { approvals: ApprovalStore; snapshots: TurnSnapshotStore };
  onEvent?: (event: AgentEvent) => void;
  now?: () => number;
  /** What the runtime does to an MCP tool: the chat's or the node's approval policy (default: nodeMcpTool). */
  adaptTool?: (tool: Tool) => Tool;
  /** The span tier the definition asks for (chat); unset: the node's named agent's, else the default. */
  tier?: SpanTier;
  /** Memory cleanup: the definition's (or the node's) `memory:` and where summaries are kept. */
  context?: { config: MemoryConfig; store?: ContextSummaryStore };
}

/**
 * The one place an agent is built from a definition, for the chat and for `agent` graph nodes alike:
 * the model, the tools (the chat's with the definition's approval policy; a node's as the node resolved
 * them), the guards its `hooks:` turn on, and its limits (iterations, turns, tool timeout, tool-result
 * size with overflow to disk). What differs by runtime is passed in: the node's deliver and knowledge
 * tools, hooks and Graph Node Context prompt; the chat's control channel and memory.
 */
export class AgentAssembler {
  constructor(private readonly deps: AgentAssemblyDeps) {}

  /** The chat's agent for a definition. */
  forChat(definition: AgentDefinition, runtime: ChatAgentRuntime): ReactAgent {
    const settings = resolveAgentNodeConfig({ agent: definition.name, max_turns: definition.limits.max_turns ?? CHAT_MAX_TURNS }, namedDefaultsOf(definition));
    const tools = this.deps.catalog.tools(definition.tools).map((t) => withApproval(t, definition.approval));
    const { summaries, ...rest } = runtime;
    return this.build({
      settings,
      node: null,
      tools,
      hooks: [],
      systemPrompt: definition.instructions,
      adaptTool: (t) => withApproval(t, definition.approval),
      tier: definition.tracing.tier,
      context: definition.memory.enabled ? { config: definition.memory, store: summaries } : undefined,
      ...rest,
    });
  }

  /** An agent node's agent (AgentNodeDeps.assemble). */
  forNode(parts: NodeAgentParts): ReactAgent {
    return this.build({
      settings: parts.config,
      node: parts.node,
      tools: parts.tools,
      hooks: parts.hooks,
      systemPrompt: parts.systemPrompt,
      memory: parts.memory,
      channel: parts.channel,
      approvals: parts.approvals,
      onEvent: parts.onEvent,
      adaptTool: (tool) => withApprovalPolicy(nodeMcpTool(tool), parts.config.approval),
      // The node's conversation is kept across its invocations: its summary is kept with it (`<instance>:<node>`).
      context: parts.config.memory.enabled ? { config: parts.config.memory, store: parts.summaries } : undefined,
    });
  }

  private build(args: BuildArgs): ReactAgent {
    const { settings } = args;
    const provider = this.deps.provider({ settings, node: args.node });
    const mcp = this.deps.mcp?.toolsHook(settings.tools, args.adaptTool ?? nodeMcpTool) ?? null;
    const writer = this.spanWriter(args);
    const agent = new ReactAgent({
      provider,
      tools: args.tools,
      hooks: this.hooks(settings, args, provider, mcp),
      context: args.context ? this.contextMemory(args.context, { provider, model: settings.model, writer }) : undefined,
      resultLimit: this.resultLimit(settings, args.node),
      channel: args.channel,
      systemPrompt: args.systemPrompt,
      request: settings.model ? { model: settings.model } : undefined,
      maxIterations: settings.max_iterations,
      maxTurns: settings.max_turns,
      toolTimeoutMs: settings.tool_timeout_seconds === undefined ? undefined : settings.tool_timeout_seconds * 1_000,
      memory: args.memory,
      approvals: args.approvals?.approvals,
      snapshots: args.approvals?.snapshots,
      onEvent: args.onEvent,
      now: args.now,
      extensions: this.deps.extensions,
      // Which agent an extension is called for: the graph node (two nodes may run one definition), else the chat's agent.
      agentId: args.node ?? settings.agent ?? undefined,
    });
    mcp?.attach(agent.registry);
    return agent;
  }

  /** The guards the settings turn on, then the runtime's own hooks (a node's deliver retry stays a default). */
  private hooks(settings: AgentNodeConfig, args: BuildArgs, provider: LlmProvider, mcp: McpToolsHook | null): HookRunner {
    const runner = new HookRunner();
    if (mcp) runner.register({ hook: mcp, name: "mcp_tools" });
    const spans = this.deps.spans;
    if (spans) {
      const model = settings.model ?? spans.model ?? provider.name;
      const agentName = settings.agent ?? args.node ?? "assistant";
      const tier = spanTierOf({ spans, chosen: args.tier, agent: settings.agent ?? undefined });
      // The full tier keeps each model call's prompt and response on its span too.
      for (const spec of createSpanHooks({ tier, sink: spans.sink, providerName: provider.name, model, agentName, handoffTools: args.node ? ["deliver"] : undefined, captureContent: tier === "full" })) {
        runner.register(spec);
      }
    }
    const on = settings.hooks;
    if (on.loop_detection) {
      const { window, observation_rounds: observationRounds } = on.loop_detection;
      runner.register({ hook: new LoopDetectionHook({ window, observationRounds }), name: "loop_detection" });
    }
    if (on.length_guard) runner.registerDefault({ hook: new LengthGuardHook(), name: "length_guard" });
    if (on.todo_continuation) runner.registerDefault({ hook: new TodoContinuationHook(), priority: TODO_CONTINUATION_PRIORITY, name: "todo_continuation" });
    if (on.current_time) runner.register({ hook: new CurrentTimeHook(args.now), name: "current_time" });
    // Tags the root span, so only with spans written.
    if (on.training_data && spans) runner.register({ hook: new TrainingDataHook(args.systemPrompt), priority: TRAINING_DATA_PRIORITY, name: "training_data" });
    for (const spec of args.hooks) (spec.name === "deliver_retry" ? runner.registerDefault(spec) : runner.register(spec));
    return runner;
  }

  /**
   * Memory cleanup for the agent: summaries by its own model, the memory hooks (todo re-orientation, and
   * the memory trace hook when the agent's spans are written).
   */
  private contextMemory(context: NonNullable<BuildArgs["context"]>, args: { provider: LlmProvider; model?: string; writer: SpanWriter | null }): ContextMemory {
    const hooks = new MemoryHookRunner();
    if (args.writer) hooks.register(new MemoryTraceHook(args.writer));
    hooks.register(new TodoReorientationHook());
    return new ContextMemory({ config: context.config, store: context.store, provider: args.provider, model: args.model, hooks });
  }

  /** A writer for the memory trace hook: when the agent writes spans at all (any tier has the root). */
  private spanWriter(args: BuildArgs): SpanWriter | null {
    const spans = this.deps.spans;
    if (!spans || !args.context) return null;
    return new SpanWriter({ sink: spans.sink });
  }

  /** The agent's result limit: the outermost tool interceptor (ReactAgent puts it first, as the spec orders it). */
  private resultLimit(settings: AgentNodeConfig, node: string | null): ToolResultLimitInterceptor | undefined {
    const dirOf = this.deps.overflowDir;
    if (!dirOf) return undefined;
    return new ToolResultLimitInterceptor({ store: new DiskToolOverflowStore((sessionId) => dirOf({ sessionId, node })), maxChars: settings.tool_result_limit });
  }
}

/** The tier an agent's spans are written at: its definition's, else the app's default (standard). */
export function spanTierOf(args: { spans: NonNullable<AgentAssemblyDeps["spans"]>; chosen?: SpanTier; agent?: string }): SpanTier {
  return args.chosen ?? (args.agent ? args.spans.tierOf?.(args.agent) : undefined) ?? args.spans.tier ?? "standard";
}

/** A definition's values as an agent node's defaults (a node's own config overrides them). */
export function namedDefaultsOf(definition: AgentDefinition): NamedAgentDefaults {
  return {
    instructions: definition.instructions,
    tools: definition.tools,
    model: definition.model,
    max_iterations: definition.limits.max_iterations,
    max_turns: definition.limits.max_turns,
    tool_timeout_seconds: definition.limits.tool_timeout_seconds,
    tool_result_limit: definition.limits.tool_result_limit,
    hooks: definition.hooks,
    knowledge: definition.knowledge,
    approval: definition.approval,
    memory: definition.memory,
  };
}

/**
 * An MCP tool in an agent node, before the node's approval policy applies (as to its catalog tools, see
 * AgentNode): the server's own `approval:` setting is the chat's, so a node's MCP tool asks only when the
 * node's (or its agent's) approval names it, matches its arguments, or its policy is `always`.
 */
function nodeMcpTool(tool: Tool): Tool {
  return tool.needsApproval ? { ...tool, needsApproval: false } : tool;
}

/** The tool as the definition's approval policy wants it (the chat; agent nodes apply theirs in AgentNode). */
export function withApproval(tool: Tool, approval: AgentDefinition["approval"]): Tool {
  return withApprovalPolicy(tool, approval);
}
