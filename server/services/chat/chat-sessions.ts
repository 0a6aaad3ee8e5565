import { ApprovalResumer } from "@/server/agent/approval/approval-resumer";
import type { ControlChannel } from "@/server/agent/control/in-memory-control-channel";
import { SteerHook } from "@/server/agent/input/steer-hook";
import type { AgentEvent } from "@/server/agent/react/agent-events";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import { chain, type Awaitable } from "@/server/graph/awaitable";
import { NO_MODEL_MESSAGE } from "../agents/model-providers";
import { notFound, ServiceError } from "../errors";
import { toChatEvents, trackLeg } from "./chat-agent-events";
import { chatCheckpointHook } from "./chat-checkpoints";
import type { BusyInputMode } from "./chat-event";
import { detach, type ChatPublisher } from "./chat-publisher";
import type { ChatApprovalRow, ChatInputRow, ChatSessionRow, ChatStore } from "./chat-store";
import type { ChatTurns } from "./chat-turns";
import type { ChatAgentSource, ChatSessionSummary } from "./chat-types";
import { sameTurn, type LiveSession } from "./live-session";

const DEFAULT_BUSY_INPUT: BusyInputMode = "QUEUE";
/** The notice that a STEER message reached the running turn. */
const STEERED = "steered the turn: ";

/**
 * The chats loaded in this process (LiveSession: the row, its agent, the turn it runs, what waits behind
 * it), one per chat: loaded from the store when first used, built with the agent the chat was opened
 * with. On a cluster, one that runs and holds nothing here is read again when used (another process may
 * have moved it on).
 */
export class ChatSessions {
  private readonly live = new Map<string, LiveSession>();

  constructor(
    private readonly deps: {
      source: ChatAgentSource | null;
      store: ChatStore;
      memory: SessionMemory;
      channel: ControlChannel;
      publisher: ChatPublisher;
      turns: ChatTurns;
      /** A process of a PostgreSQL cluster (see ChatClusterOptions). */
      cluster: boolean;
      /** The busy-input mode of agents that name none (default QUEUE). */
      busyInput?: BusyInputMode;
      /** Throws INVALID_STATE when no model is configured. */
      requireConfigured: () => void;
      /** Start-up's end of orphaned turns: reads of stored chats come after it. */
      ready: () => Awaitable<void>;
      now: () => number;
    },
  ) {}

  /** The chat as loaded here, if it is (current or not). */
  get(sessionId: string): LiveSession | undefined {
    return this.live.get(sessionId);
  }

  loaded(): IterableIterator<LiveSession> {
    return this.live.values();
  }

  /** The chat is gone (deleted): it is loaded no more. */
  drop(sessionId: string): void {
    this.live.delete(sessionId);
  }

  /** Forgets the chats that run and wait on nothing: their next turn builds its agent from the latest definition. */
  forgetIdle(): void {
    for (const [id, live] of this.live) if (live.leg === null && live.queue.length === 0 && live.steer.length === 0 && live.awaiting === null) this.live.delete(id);
  }

  /** `queued`: the chat's waiting inputs as stored (ChatStore.waitingCounts), whichever process holds them. */
  summaryOf(row: ChatSessionRow, queued: number): ChatSessionSummary {
    const live = this.live.get(row.sessionId);
    return {
      sessionId: row.sessionId,
      title: row.title,
      agent: row.agent,
      turns: row.turns,
      running: row.runningTurn !== null,
      awaitingApproval: row.awaitingApproval !== null,
      busyInput: live?.busyInput ?? this.busyInputOf(row.agent),
      queued,
      updatedAt: row.updatedAt,
    };
  }

  busyInputOf(agent: string | null): BusyInputMode {
    return this.deps.source?.busyInput?.(agent) ?? this.deps.busyInput ?? DEFAULT_BUSY_INPUT;
  }

  /** A new chat, not yet stored (the caller writes its row with its first event, or at once). */
  open(sessionId: string, agentName: string | null, title: string): LiveSession {
    const at = this.deps.now();
    const row: ChatSessionRow = { sessionId, title, agent: agentName, turns: 0, runningTurn: null, awaitingApproval: null, createdAt: at, updatedAt: at };
    return this.load(row, null);
  }

  /**
   * The chat loaded here once no turn's claim of it is on its way (a queued message starting, say): a
   * claim may lose to another process's turn, and a message decided meanwhile would be decided against
   * a turn that never runs.
   */
  async settled(sessionId: string): Promise<LiveSession> {
    for (;;) {
      const live = await this.require(sessionId);
      if (!live.claiming) return live;
      await live.claiming.catch(() => undefined);
    }
  }

  /** The chat loaded in this process (loading it from the store first, when it is not). */
  require(sessionId: string): Awaitable<LiveSession> {
    const live = this.live.get(sessionId);
    if (live && !this.stale(live)) return live;
    this.deps.requireConfigured();
    return chain(this.requireRow(sessionId), (row) => {
      // Another call may have loaded it while the store answered: one LiveSession per chat.
      const current = this.live.get(sessionId);
      if (current && (!this.stale(current) || sameTurn(current.row, row))) {
        if (this.stale(current)) current.row = { ...row, agent: current.row.agent };
        return current;
      }
      return chain(row.awaitingApproval ? this.deps.store.approval(row.awaitingApproval) : null, (awaiting) =>
        chain(this.waitingOf(row), (waiting) => {
          const again = this.live.get(sessionId);
          if (again && again !== current) return again;
          const loaded = this.load(row, awaiting);
          loaded.queue.push(...waiting.filter((i) => i.mode !== "STEER"));
          loaded.steer.push(...waiting.filter((i) => i.mode === "STEER"));
          return loaded;
        }),
      );
    });
  }

  requireRow(sessionId: string): Awaitable<ChatSessionRow> {
    const live = this.live.get(sessionId);
    if (live && !this.stale(live)) return live.row;
    return chain(this.deps.ready(), () =>
      chain(this.deps.store.session(sessionId), (row) => {
        if (!row) throw notFound("chat", sessionId);
        return row;
      }),
    );
  }

  /**
   * Messages acknowledged as waiting behind the running turn of a chat this process loads from the
   * store (their rows, ChatInputRow). On one process that means it restarted, and the turn waits for an
   * approval (a turn that was streaming was ended at start, and what waited behind it runs at once). On
   * a cluster the process that ends the turn runs them, from the store: none are held here.
   */
  private waitingOf(row: ChatSessionRow): Awaitable<ChatInputRow[]> {
    if (this.deps.cluster || !row.runningTurn) return [];
    return this.deps.store.waitingInputs(row.sessionId);
  }

  /**
   * On a cluster, a chat loaded here may be behind the store: another process may have run turns of it,
   * ended one or decided its approval. One with nothing running or queued here is read again when used
   * (and loaded anew when its turn changed); one this process drives is current.
   */
  private stale(live: LiveSession): boolean {
    return this.deps.cluster && live.leg === null && live.queue.length === 0 && live.steer.length === 0;
  }

  /** Builds a chat's agent (its agent was fixed when it started: approvals resume on the same definition). */
  private load(row: ChatSessionRow, awaiting: ChatApprovalRow | null): LiveSession {
    const { source, channel, memory, store, now } = this.deps;
    if (!source) throw new ServiceError("INVALID_STATE", NO_MODEL_MESSAGE);
    const runtime = { channel, memory, summaries: store, onEvent: (e: AgentEvent) => this.onAgentEvent(e), now };
    const { name, agent } = source.build(row.agent, runtime);
    const live: LiveSession = {
      row: { ...row, agent: name },
      agent,
      resumer: new ApprovalResumer(agent, now),
      busyInput: this.busyInputOf(name),
      awaiting,
      queue: [],
      steer: [],
      steering: [],
      completed: new Set(),
      leg: null,
      claiming: null,
      deleted: false,
      changes: 0,
    };
    agent.hooks.register({ hook: new SteerHook((id) => this.takeSteer(id), (id, turnId) => this.steered(id, turnId)), name: "chat_steer" });
    agent.hooks.register(chatCheckpointHook(this.deps.store, now));
    this.live.set(row.sessionId, live);
    return live;
  }

  private onAgentEvent(e: AgentEvent): void {
    const sessionId = this.deps.turns.sessionOf(e.turnId);
    const live = sessionId ? this.live.get(sessionId) : undefined;
    if (!live) return;
    if (e.type === "turn_completed") live.completed.add(e.turnId);
    if (live.leg?.turnId === e.turnId) trackLeg(live.leg, e);
    for (const body of toChatEvents(e)) this.deps.publisher.publish(live, e.turnId, body);
  }

  /** STEER messages for the turn's next model call: handed over, and told as injected right after (`steered`). */
  private takeSteer(sessionId: string): string[] {
    const live = this.live.get(sessionId);
    if (!live) return [];
    live.steering = live.steer.splice(0);
    return live.steering.map((i) => i.text);
  }

  /** The turn's model call got them: a notice each, and their rows no longer wait (one commit). */
  private steered(sessionId: string, turnId: string): void {
    const live = this.live.get(sessionId);
    if (!live) return;
    const inputs = live.steering.splice(0);
    detach(
      this.deps.publisher.atomically(() => {
        for (const input of inputs) this.deps.publisher.publish(live, turnId, { type: "notice", command: "steer", text: `${STEERED}${input.text}`, isError: false });
        this.deps.store.steeredInputs(inputs.map((i) => i.inputId), turnId);
      }),
    );
  }
}
