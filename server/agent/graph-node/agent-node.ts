import { randomUUID } from "node:crypto";
import type { NodeContext } from "../../graph/context";
import { GraphDrained, type DrainReason } from "../../graph/errors";
import type { NodeActivity } from "../../graph/events";
import { START } from "../../graph/names";
import { Node, type DeliveredInput, type NodeOptions } from "../../graph/node";
import { isResumeSignal } from "../../graph/payload";
import { ApprovalResumer } from "../approval/approval-resumer";
import type { ApprovalStore } from "../approval/approval-store";
import { ApprovalDecisionSchema } from "../approval/approval-types";
import { snapshotTurn, type TurnSnapshotStore } from "../approval/turn-snapshot";
import { ControlCommandType } from "../control/control-command";
import { InMemoryControlChannel, type ControlChannel } from "../control/in-memory-control-channel";
import { AGENT_ERROR_CODES, AgentError } from "../errors";
import { DeliverRetryHook } from "../hook/builtin/deliver-retry-hook";
import { HookRunner, type HookSpec } from "../hook/hook-runner";
import type { LlmProvider } from "../llm/llm-provider";
import type { AgentEvent } from "../react/agent-events";
import { ReactAgent, type AgentRunOutcome } from "../react/react-agent";
import type { SessionMemory } from "../react/session-memory";
import { ContextMemory } from "../memory/context-memory";
import type { ContextSummaryStore } from "../memory/context-summary";
import { MemoryHookRunner } from "../memory/memory-hook-runner";
import { TodoReorientationHook } from "../memory/todo-reorientation-hook";
import { StopReason } from "../stop-reason";
import type { Tool } from "../tools/tool";
import { GraphKnowledgeBase } from "../knowledge/knowledge-base";
import { knowledgeActionsFor, knowledgeBaseTool } from "../knowledge/knowledge-base-tool";
import { KnowledgeHook } from "../knowledge/knowledge-hook";
import { KnowledgeUsage } from "../knowledge/knowledge-usage";
import { AgentActivityReporter, type AgentActivity, type AgentLiveDelta } from "./agent-activity";
import { AGENT_APPROVAL_KIND, type AgentApprovalRequest } from "./agent-approval-request";
import { withApprovalPolicy, type AgentNodeConfig, type NamedAgentDefaults } from "./agent-node-config";
import { DELIVER_TOOL, deliveriesOfSuspendedTurn, deliverTool, type Delivery } from "./deliver-tool";
import { deliverDescription, graphNodeContext, nodeInputEnvelope, type NodePlace } from "./graph-node-context";
import {
  checkpointDecision,
  isRecoveredInput,
  nodeCheckpointHook,
  nodeCheckpointKey,
  NODE_RESUME_LIMIT_MESSAGE,
  resumedSummary,
  type CheckpointDecision,
  type NodeCheckpointStore,
} from "./node-checkpoints";

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
  /**
   * Keeps each node's conversation across its invocations (session id: `<instance>:<node>`): a loop's
   * next pass sees its earlier turns. In the app it is the database (SqliteAgentMemory), so a node
   * recovered after a crash sees its history too.
   */
  memory?: SessionMemory;
  /**
   * Where memory cleanup keeps each node's summary (session `<instance>:<node>`), beside its conversation
   * (the database in the app); none: a summary lives for its turn only, and the next turn summarizes again.
   */
  summaries?: ContextSummaryStore;
  /** Where a turn suspended on an approval keeps its transaction and frozen turn (durable in the app). */
  approvals?: { approvals: ApprovalStore; snapshots: TurnSnapshotStore };
  /**
   * Where a running turn keeps its iteration checkpoint (durable in the app): an invocation a recovery
   * runs in place of one cut by a crash resumes its turn from there instead of running it again.
   */
  checkpoints?: NodeCheckpointStore;
  /** A fresh runner per execution (span hooks, loop detection…); DeliverRetryHook is added by default. */
  hooks?: () => HookRunner;
  /**
   * The shared knowledge base: each graph instance gets `<workspace>/.modex/graphs/instances/<id>/`, and
   * every agent node of it the `knowledge_base` tool and KnowledgeHook. Off when unset.
   */
  knowledge?: { workspace: string };
  /** Live progress of every agent node (LLM deltas, tool results) for the instance view; observation only. */
  onEvent?: (event: AgentNodeEvent) => void;
  /** Streamed text of a running turn, for live display (never persisted); observation only. */
  onDelta?: (delta: AgentNodeDelta) => void;
  /**
   * Called before the node writes an activity event: the app opens the engine's deferred transaction
   * there, so a turn's events (and its memory and spans) share commits instead of paying one each.
   */
  beforeWrite?: () => void;
}

export type AgentNodeEvent = AgentEvent & { instanceId: string; node: string };
export type AgentNodeDelta = AgentLiveDelta & { instanceId: string; node: string; invocationId: string };

/** What one agent-node execution runs: its settings and the node's own tools, hooks and prompt. */
export interface NodeAgentParts {
  node: string;
  config: AgentNodeConfig;
  /** Catalog tools, then deliver and knowledge_base, each asking approval as the agent's policy says. */
  tools: Tool[];
  /** The node's hooks (knowledge, deliver retry): register them on the runner you build. */
  hooks: HookSpec[];
  /** The Graph Node Context section, with the role. */
  systemPrompt: string;
  memory?: SessionMemory;
  /** Where the node's memory-cleanup summary is kept (config.memory says whether and when to clean up). */
  summaries?: ContextSummaryStore;
  approvals?: AgentNodeDeps["approvals"];
  /** Carries CANCEL_TURN when the graph is paused or stopped: wire it (path-A cancellation). */
  channel: ControlChannel;
  onEvent?: (event: AgentEvent) => void;
}

/** A node invocation's checkpoint: where it is kept and what was found there when the invocation began. */
interface TurnCheckpoint {
  store: NodeCheckpointStore;
  key: string;
  found: CheckpointDecision;
  /** A checkpoint of this invocation may be stored: deleted when the turn ends (none: no query). */
  written: boolean;
}

const FRESH: CheckpointDecision = { kind: "fresh" };

/** A note that starts a turn re-run after a pause or stop cut the last one off (its input is in memory). */
const CONTINUE_CANCELLED = "<system-reminder>\nYour previous turn on this input was cancelled (the graph was paused) before it finished. Continue the work from where it stopped; what you already streamed is above.\n</system-reminder>";

/**
 * A graph node backed by a ReAct agent. Each execution runs one agent turn in graph-node mode: the input
 * arrives as a system-reminder envelope (`[Input from graph node 'X']` blocks with roles, `[Upstream
 * Status]`), MAX_TURNS defaults to 3, and the installed `deliver` tool is the only route onward — each
 * delivery becomes an engine deliver to its target. A turn that ends without delivering is retried by
 * DeliverRetryHook; one that never delivers, or ends in a controlled exit or an error, fails the node.
 *
 * Beyond the spec (which turns approval off in graphs): a tool the agent's policy asks approval for
 * suspends the graph through the engine's interrupt (payload: AgentApprovalRequest); the resumed run
 * re-enters this node with the decision, and the same turn goes on at TOOL; what the turn delivered before
 * it suspended (kept in its snapshot) is routed with the rest when it ends, once. A pause or stop of the graph
 * cancels a running turn (CANCEL_TURN, within one stream event; what streamed is kept in memory) and the
 * invocation ends cancelled, so a resume runs it again with its memory.
 *
 * Crash recovery: with `checkpoints`, the turn saves a checkpoint after each iteration whose tools all
 * finished, under a key of the invocation's inputs (node-checkpoints.ts); the invocation a recovery runs
 * in its place (same inputs, re-offered) resumes the turn from it (`resumeCheckpoint`): no tool before
 * it runs again, and what it delivered up to there is routed with the rest, once. A leg resumed by an
 * approval decision checkpoints the same way, under its own key (its inputs hold the decision's row); a
 * recovery of it goes on from its checkpoint, without applying the decision again. At most
 * MAX_NODE_CHECKPOINT_RESUMES times per turn; then the node fails. The checkpoint is deleted when the
 * leg ends (completed, failed, cancelled or suspended again).
 */
export class AgentNode extends Node {
  /** Where it sits, its prompt and deliver description: the same for every execution on one topology. */
  private readonly framing = new WeakMap<object, { place: NodePlace; systemPrompt: string; deliver: string }>();

  constructor(
    name: string,
    private readonly config: AgentNodeConfig,
    private readonly deps: AgentNodeDeps,
    options: NodeOptions = {},
  ) {
    super(name, options);
  }

  async execute(ctx: NodeContext, input: readonly DeliveredInput[]): Promise<void> {
    // The newest decision: an earlier one may be re-offered with it (the invocation it resumed suspended again).
    const resume = input.findLast((i) => isResumeSignal(i.content));
    const checkpoints = this.deps.checkpoints ?? null;
    // A leg resumed by a decision checkpoints too: its inputs hold the decision's row, so its key is its own.
    const key = checkpoints && nodeCheckpointKey(ctx.graph.instanceId, this.name, input);
    const found = key && isRecoveredInput(input, resume) ? checkpointDecision(await checkpoints!.load(key)) : FRESH;
    if (found.kind === "exhausted") {
      await checkpoints!.delete(key!);
      throw this.failure(NODE_RESUME_LIMIT_MESSAGE);
    }
    const checkpoint: TurnCheckpoint | null = key ? { store: checkpoints!, key, found, written: found.kind !== "fresh" } : null;
    try {
      await this.runTurn(ctx, input, resume, checkpoint);
    } finally {
      // The turn ended, however (completed, failed, cancelled, suspended): nothing is left to resume.
      if (checkpoint?.written) await checkpoint.store.delete(checkpoint.key);
    }
  }

  private async runTurn(ctx: NodeContext, input: readonly DeliveredInput[], resume: DeliveredInput | undefined, checkpoint: TurnCheckpoint | null): Promise<void> {
    const deliveries: Delivery[] = [];
    const { place, systemPrompt, deliver } = this.framingFor(ctx);
    const sessionId = `${ctx.graph.instanceId}:${this.name}`;
    const own = this.catalogTools();
    const knowledge = this.knowledge(ctx.graph.instanceId, own);
    const channel = new InMemoryControlChannel();
    const said: string[] = [];
    const reporter = new AgentActivityReporter({
      activity: (a) => {
        if (a.kind === "message" && a.text) said.push(a.text);
        this.deps.beforeWrite?.();
        emitActivity(ctx, a);
      },
      delta: this.deps.onDelta && ((d) => this.deps.onDelta!({ ...d, instanceId: ctx.graph.instanceId, node: this.name, invocationId: ctx.invocation.invocationId })),
    }, this.config.model);
    const tools = [...own, deliverTool({ node: this.name, targets: place.downstream, sink: deliveries, description: deliver }), ...(knowledge ? [knowledge.tool] : [])];
    const parts: NodeAgentParts = {
      node: this.name,
      config: this.config,
      tools: tools.map((t) => withApprovalPolicy(t, this.config.approval)),
      hooks: [
        ...(knowledge ? [{ hook: knowledge.hook, name: "knowledge" }] : []),
        { hook: new DeliverRetryHook(DELIVER_TOOL), name: "deliver_retry" },
        ...(checkpoint ? [nodeCheckpointHook(checkpoint.store, checkpoint.key, () => (checkpoint.written = true))] : []),
      ],
      systemPrompt,
      memory: this.deps.memory,
      summaries: this.deps.summaries,
      approvals: this.deps.approvals,
      channel,
      onEvent: (event) => {
        reporter.onEvent(event);
        this.deps.onEvent?.({ ...event, instanceId: ctx.graph.instanceId, node: this.name });
      },
    };
    const agent = this.deps.assemble ? this.deps.assemble(parts) : this.defaultAgent(parts);
    const turnId = randomUUID();
    let cancelled: DrainReason | null = null;
    const cancel = (reason: DrainReason, id: string) => {
      cancelled = reason;
      channel.send({ type: ControlCommandType.CANCEL_TURN, scope: "turn", sessionId, turnId: id, reason: `graph ${reason}` });
    };
    // Cancellable by a pause or stop while `run` runs the turn `id`; its live text ends with it.
    const leg = async (id: string, run: () => Promise<AgentRunOutcome>): Promise<AgentRunOutcome> => {
      const off = ctx.graph.control?.onRequest((reason) => cancel(reason, id));
      try {
        return await run();
      } finally {
        off?.();
        reporter.endLive(id);
      }
    };
    let outcome: AgentRunOutcome;
    if (checkpoint?.found.kind === "resume") {
      const { snapshot, turn, resumes } = checkpoint.found;
      // What the turn delivered up to its checkpoint, in the legs before a decision too: routed with what it
      // delivers from here on, once (the engine commits a node's deliveries with its completion, so none of
      // them left before the crash). The decision a resumed leg went on from is in it: not applied again.
      deliveries.push(...deliveriesOfSuspendedTurn(snapshot));
      // The raised count is stored before the turn goes on: a crash on the way counts as a resume.
      await checkpoint.store.save(checkpoint.key, snapshotTurn(turn, snapshot.resumeTarget));
      this.deps.beforeWrite?.();
      emitActivity(ctx, { kind: "turn_resumed", turnId: turn.turnId, summary: resumedSummary(snapshot, resumes), step: snapshot.turn.iteration, resumes });
      outcome = await leg(turn.turnId, () => agent.resumeCheckpoint({ turn, signal: ctx.signal }));
    } else if (resume && isResumeSignal(resume.content)) {
      const decision = ApprovalDecisionSchema.parse(resume.content.value);
      const tx = await agent.approvals.get(decision.transactionId);
      const id = tx?.turnId ?? turnId;
      // What the turn delivered before it suspended: routed with what it delivers from here on, once.
      if (tx) deliveries.push(...deliveriesOfSuspendedTurn(await agent.snapshots.load(tx.turnId)));
      // A re-offered decision without a checkpoint: the leg it resumed was cut before it saved one (a crash
      // while the approved call ran), or a pause cancelled it (its checkpoint went with it). Applied again.
      const again = isRecoveredInput(input, resume);
      const summary = `${decision.approved ? "approved" : "denied"}${decision.reason ? `: ${decision.reason}` : ""}${again ? " (applied again: the leg it resumed was cut short)" : ""}`;
      emitActivity(ctx, { kind: "approval_decided", turnId: id, summary, transactionId: decision.transactionId, approved: decision.approved, ...(decision.reason ? { reason: decision.reason } : {}) });
      outcome = await leg(id, () => new ApprovalResumer(agent).applyResume(decision, { signal: ctx.signal, again }));
    } else {
      const message = await this.inputMessage(place, sessionId, input);
      emitActivity(ctx, { kind: "turn_started", turnId, summary: `turn started (${input.length} input${input.length === 1 ? "" : "s"})`, input: message, resumed: message === CONTINUE_CANCELLED });
      outcome = await leg(turnId, () => agent.run(message, { sessionId, turnId, signal: ctx.signal }));
    }
    reporter.flush(outcome.turnId);
    if (outcome.status === "finished" && !reporter.ended) reporter.onEvent({ type: "turn_completed", turnId: outcome.turnId, result: outcome.result });
    if (outcome.status === "suspended") return this.suspend(ctx, outcome, said);
    const { result } = outcome;
    if (cancelled && result.stopReason === StopReason.CANCELLED) throw new GraphDrained(cancelled, [ctx.nodeInstance]);
    if (result.stopReason !== StopReason.COMPLETED) throw this.failure(`ended with ${result.stopReason}: ${result.content}`);
    if (deliveries.length === 0) throw this.failure("finished without calling deliver");
    for (const d of deliveries) ctx.deliver(d.content, d.target);
  }

  private framingFor(ctx: NodeContext) {
    const topology = ctx.binding.topology;
    let f = this.framing.get(topology);
    if (!f) {
      const place = placeOf(ctx, this.config);
      f = { place, systemPrompt: graphNodeContext(place, this.config.instructions, { knowledge: !!this.deps.knowledge }), deliver: deliverDescription(place) };
      this.framing.set(topology, f);
    }
    return f;
  }

  /**
   * The turn's input: the envelope, unless memory already holds it (a crash or a cancellation cut the
   * turn that read it short: the re-offered rows are in the conversation already), then a note to go on.
   */
  private async inputMessage(place: NodePlace, sessionId: string, input: readonly DeliveredInput[]): Promise<string> {
    const envelope = nodeInputEnvelope(place, input);
    if (!this.deps.memory || !input.some((row) => row.status === "CONSUMED_PENDING")) return envelope;
    const history = await this.deps.memory.load(sessionId);
    return history.some((m) => m.role === "user" && m.content === envelope) ? CONTINUE_CANCELLED : envelope;
  }

  /** The agent waits for a person: the graph suspends through the engine's interrupt. */
  private suspend(ctx: NodeContext, outcome: Extract<AgentRunOutcome, { status: "suspended" }>, said: readonly string[]): never {
    const tx = outcome.transaction;
    const request: AgentApprovalRequest = {
      kind: AGENT_APPROVAL_KIND,
      node: this.name,
      prompt: `${this.name} asks to run ${tx.call.name}`,
      transactionId: tx.id,
      turnId: tx.turnId,
      tool: tx.call.name,
      args: tx.call.arguments,
      reasoning: said.join("\n\n"),
      requestedAt: tx.createdAt,
      context: [],
    };
    return ctx.interrupt(request);
  }

  /** Catalog tools by name. Unknown names are reported by the node type at compile time. */
  private catalogTools(): Tool[] {
    const catalog = new Map((this.deps.tools ?? []).map((t) => [t.name, t]));
    return this.config.tools.flatMap((name) => {
      const tool = catalog.get(name);
      return tool ? [tool] : [];
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
    const provider = this.deps.provider(this.config, this.name);
    return new ReactAgent({
      provider,
      tools: parts.tools,
      hooks: runner,
      systemPrompt: parts.systemPrompt,
      request: this.config.model ? { model: this.config.model } : undefined,
      maxIterations: this.config.max_iterations,
      maxTurns: this.config.max_turns,
      memory: parts.memory,
      context: this.contextMemory(parts, provider),
      approvals: parts.approvals?.approvals,
      snapshots: parts.approvals?.snapshots,
      channel: parts.channel,
      onEvent: parts.onEvent,
    });
  }

  /** Memory cleanup as the node's `memory:` says, summaries by the node's own model (none when it is off). */
  private contextMemory(parts: NodeAgentParts, provider: LlmProvider): ContextMemory | undefined {
    const config = this.config.memory;
    if (!config.enabled) return undefined;
    const hooks = new MemoryHookRunner().register(new TodoReorientationHook());
    return new ContextMemory({ config, store: parts.summaries, provider, model: this.config.model, hooks });
  }

  private failure(why: string): AgentError {
    return new AgentError(AGENT_ERROR_CODES.INVALID_STATE, `agent node ${this.name} ${why}`);
  }
}

/** Where the node sits in its graph, with each neighbour's role (its spec description). */
function placeOf(ctx: NodeContext, config: AgentNodeConfig): NodePlace {
  const topology = ctx.binding.topology;
  const node = ctx.binding.name;
  // The prompt lists a few dozen edges at most (graph-node-context.ts): a 1,000-node fan-out has 2,000.
  const edges: Array<readonly [string, string]> = [];
  outer: for (const from of topology.names) {
    for (const to of topology.successorsOf(from)) {
      edges.push([from, to]);
      if (edges.length > EDGES_LISTED) break outer;
    }
  }
  return {
    node,
    nodes: topology.names,
    upstream: topology.predecessorsOf(node).filter((n) => n !== START || topology.predecessorsOf(node).length === 1),
    downstream: topology.successorsOf(node),
    edges,
    roleOf: (n) => (n === node ? config.instructions : ctx.describe(n)),
  };
}

const EDGES_LISTED = 100;

function emitActivity(ctx: NodeContext, activity: AgentActivity): void {
  const observer = ctx.graph.observer;
  if (!observer) return;
  observer.onEvent({ type: "node_activity", instanceId: ctx.graph.instanceId, node: ctx.binding.name, invocationId: ctx.invocation.invocationId, version: ctx.invocation.version, activity: activity as unknown as NodeActivity });
}
