import type { NodeContext } from "../../graph/context";
import { Node, type DeliveredInput, type NodeOptions } from "../../graph/node";
import type { DeliverRow } from "../../graph/persistence/records";
import { AGENT_ERROR_CODES, AgentError } from "../errors";
import { DeliverRetryHook } from "../hook/builtin/deliver-retry-hook";
import { HookRunner, type HookSpec } from "../hook/hook-runner";
import type { LlmProvider } from "../llm/llm-provider";
import type { AgentEvent } from "../react/agent-events";
import { ReactAgent } from "../react/react-agent";
import type { SessionMemory } from "../react/session-memory";
import { StopReason } from "../stop-reason";
import type { Tool } from "../tools/tool";
import { GraphKnowledgeBase } from "../knowledge/knowledge-base";
import { knowledgeActionsFor, knowledgeBaseTool } from "../knowledge/knowledge-base-tool";
import { KnowledgeHook } from "../knowledge/knowledge-hook";
import { KnowledgeUsage } from "../knowledge/knowledge-usage";
import type { AgentNodeConfig, NamedAgentDefaults } from "./agent-node-config";
import { DELIVER_TOOL, deliverTool, type Delivery } from "./deliver-tool";
import { nodeInputMessage } from "./node-input-message";

/** What every agent node of an app shares: the model, the tool catalog, memory and hook wiring. */
export interface AgentNodeDeps {
  provider: (config: AgentNodeConfig, node: string) => LlmProvider;
  /** The catalog a node's `tools` names pick from. */
  tools?: readonly Tool[];
  /** Names a node may list though each node installs them itself (deliver, knowledge_base). */
  nodeToolNames?: readonly string[];
  /** Named agents a node's `config.agent` refers to: their values are the node's defaults. */
  agents?: (name: string) => NamedAgentDefaults | null;
  /**
   * Builds the node's agent from its parts: the app's one assembly (server/services/agents), which adds
   * the configured hooks, limits and model. Default: a ReactAgent from the parts and `provider`, `hooks`.
   */
  assemble?: (parts: NodeAgentParts) => ReactAgent;
  /** Keeps each node's conversation across its invocations (session id: `<instance>:<node>`). */
  memory?: SessionMemory;
  /** A fresh runner per execution (span hooks, loop detection…); DeliverRetryHook is added by default. */
  hooks?: () => HookRunner;
  /**
   * The shared knowledge base: each graph instance gets `<workspace>/.modex/graphs/instances/<id>/`, and
   * every agent node of it the `knowledge_base` tool and KnowledgeHook. Off when unset.
   */
  knowledge?: { workspace: string };
  /** Live progress of every agent node (LLM deltas, tool results) for the instance view; observation only. */
  onEvent?: (event: AgentNodeEvent) => void;
}

export type AgentNodeEvent = AgentEvent & { instanceId: string; node: string };

/** What one agent-node execution runs: its settings and the node's own tools, hooks and prompt. */
export interface NodeAgentParts {
  node: string;
  config: AgentNodeConfig;
  /** Catalog tools (approval off), then deliver and knowledge_base. */
  tools: Tool[];
  /** The node's hooks (knowledge, deliver retry): register them on the runner you build. */
  hooks: HookSpec[];
  /** The Graph Node Context section, with the role. */
  systemPrompt: string;
  memory?: SessionMemory;
  onEvent?: (event: AgentEvent) => void;
}

/**
 * A graph node backed by a ReAct agent. Each execution runs one agent turn in graph-node mode: the
 * input arrives as `[Input from graph node 'X']` blocks, MAX_TURNS defaults to 3, approval is off (a node
 * runs as designed intent; a suspend would deadlock the graph), and the installed `deliver` tool is the
 * only route onward — each delivery becomes an engine deliver to its target. A turn that ends without
 * delivering is retried by DeliverRetryHook; one that never delivers, or ends in a controlled exit or an
 * error, fails the node.
 */
export class AgentNode extends Node {
  constructor(
    name: string,
    private readonly config: AgentNodeConfig,
    private readonly deps: AgentNodeDeps,
    options: NodeOptions = {},
  ) {
    super(name, options);
  }

  /** The agent's memory already holds re-offered (CONSUMED_PENDING) input: crash recovery must not re-inject it. */
  override integrate(rows: readonly DeliverRow[]): readonly DeliveredInput[] {
    return super.integrate(rows).filter((row) => row.status !== "CONSUMED_PENDING");
  }

  async execute(ctx: NodeContext, input: readonly DeliveredInput[]): Promise<void> {
    const deliveries: Delivery[] = [];
    const targets = ctx.binding.topology.successorsOf(this.name);
    const own = this.catalogTools();
    const knowledge = this.knowledge(ctx.graph.instanceId, own);
    const parts: NodeAgentParts = {
      node: this.name,
      config: this.config,
      tools: [...own, deliverTool({ node: this.name, targets, sink: deliveries }), ...(knowledge ? [knowledge.tool] : [])],
      hooks: [...(knowledge ? [{ hook: knowledge.hook, name: "knowledge" }] : []), { hook: new DeliverRetryHook(DELIVER_TOOL), name: "deliver_retry" }],
      systemPrompt: this.systemPrompt(targets),
      memory: this.deps.memory,
      onEvent: this.deps.onEvent && ((event) => this.deps.onEvent!({ ...event, instanceId: ctx.graph.instanceId, node: this.name })),
    };
    const agent = this.deps.assemble ? this.deps.assemble(parts) : this.defaultAgent(parts);
    const outcome = await agent.run(nodeInputMessage(input), { sessionId: `${ctx.graph.instanceId}:${this.name}`, signal: ctx.signal });
    if (outcome.status !== "finished") throw this.failure("suspended, but approval is off in graph nodes");
    if (outcome.result.stopReason !== StopReason.COMPLETED) throw this.failure(`ended with ${outcome.result.stopReason}: ${outcome.result.content}`);
    if (deliveries.length === 0) throw this.failure("finished without calling deliver");
    for (const d of deliveries) ctx.deliver(d.content, d.target);
  }

  /** Catalog tools by name, with approval off. Unknown names are reported by the node type at compile time. */
  private catalogTools(): Tool[] {
    const catalog = new Map((this.deps.tools ?? []).map((t) => [t.name, t]));
    return this.config.tools.flatMap((name) => {
      const tool = catalog.get(name);
      return tool ? [{ ...tool, needsApproval: false }] : [];
    });
  }

  /** The run's knowledge base as this node sees it: the tool (actions from its own tools) and the hook. */
  private knowledge(instanceId: string, own: readonly Tool[]) {
    if (!this.deps.knowledge) return null;
    const kb = GraphKnowledgeBase.forInstance(this.deps.knowledge.workspace, instanceId);
    const usage = new KnowledgeUsage();
    const { require_read: read, require_write: write } = this.config.knowledge;
    return {
      tool: knowledgeBaseTool({ kb, node: this.name, actions: knowledgeActionsFor(own), usage }),
      hook: new KnowledgeHook(kb, usage, { read, write }),
    };
  }

  /** The agent without the app's assembly (library use, tests): the parts, `provider` and `hooks`. */
  private defaultAgent(parts: NodeAgentParts): ReactAgent {
    const runner = this.deps.hooks?.() ?? new HookRunner();
    for (const spec of parts.hooks) (spec.name === "deliver_retry" ? runner.registerDefault(spec) : runner.register(spec));
    return new ReactAgent({
      provider: this.deps.provider(this.config, this.name),
      tools: parts.tools,
      hooks: runner,
      systemPrompt: parts.systemPrompt,
      request: this.config.model ? { model: this.config.model } : undefined,
      maxIterations: this.config.max_iterations,
      maxTurns: this.config.max_turns,
      memory: parts.memory,
      onEvent: parts.onEvent,
    });
  }

  private systemPrompt(targets: readonly string[]): string {
    return [
      "## Graph Node Context",
      `You are node "${this.name}" of a workflow graph. Only the deliver tool routes your work onward; plain replies reach no one.`,
      `Downstream: ${targets.join(", ") || "(none)"}.`,
      ...(this.deps.knowledge ? ["A knowledge base shared by every node of this run (the knowledge_base tool) holds findings, decisions, open questions and context: read what earlier nodes found, record what later ones need."] : []),
      "### Your Role",
      this.config.instructions,
    ].join("\n");
  }

  private failure(why: string): AgentError {
    return new AgentError(AGENT_ERROR_CODES.INVALID_STATE, `agent node ${this.name} ${why}`);
  }
}
