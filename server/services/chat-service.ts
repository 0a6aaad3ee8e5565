import { ApprovalResumer } from "@/server/agent/approval/approval-resumer";
import { InMemoryControlChannel } from "@/server/agent/control/in-memory-control-channel";
import { adaptInput } from "@/server/agent/input/input-adapter";
import { helpText, sessionControl, type SessionCommand } from "@/server/agent/input/session-control";
import { SteerHook } from "@/server/agent/input/steer-hook";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { AgentEvent } from "@/server/agent/react/agent-events";
import type { ReactAgent } from "@/server/agent/react/react-agent";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import type { Tool } from "@/server/agent/tools/tool";
import type { SpanRecord } from "@/server/agent/trace/span-record";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import { newSnowflake } from "@/server/graph/ids";
import { KeyedChain } from "@/server/graph/keyed-chain";
import { NO_MODEL_MESSAGE } from "./agents/model-providers";
import { decidedEvent, toChatEvents, trackLeg } from "./chat/chat-agent-events";
import { applyBusy, busy } from "./chat/chat-busy-input";
import type { BusyInputMode, ChatEvent } from "./chat/chat-event";
import { ChatPublisher, describe, detach } from "./chat/chat-publisher";
import { InMemoryChatStore, type ChatApprovalRow, type ChatSessionRow, type ChatStore, type NewChatEvent } from "./chat/chat-store";
import { ChatTurns } from "./chat/chat-turns";
import type { ChatAgentSource, ChatClusterOptions, ChatDecision, ChatSessionSummary, ChatTurnRelay, RelayedTurnRequest, SendOutcome, TurnPricing } from "./chat/chat-types";
import { inlineSource } from "./chat/inline-agent-source";
import { changeRow, sameTurn, type LiveSession } from "./chat/live-session";
import { endOrphanedTurns, endTurnOf } from "./chat/orphaned-turns";
import { pendingInputOf, STEERED, type PendingInput } from "./chat/pending-input";
import { notFound, ServiceError } from "./errors";
import type { ChatSessionHooks } from "./extensions/session-points";
import { KeyedListeners } from "./keyed-listeners";
import { liveStream } from "./live-stream";

export type { BusyInputMode, ChatEvent } from "./chat/chat-event";
export { BUSY_INPUT_MODES } from "./chat/chat-event";
export type { ChatAgentSource, ChatClusterOptions, ChatDecision, ChatSessionSummary, ChatTurnRelay, RelayedTurnRequest, SendOutcome, TurnPricing } from "./chat/chat-types";
export { CHAT_SYSTEM_PROMPT } from "./chat/inline-agent-source";

const DEFAULT_BUSY_INPUT: BusyInputMode = "QUEUE";
/** How long a process waits for another to free a chat's row after its turn ended (endedElsewhere, cancelElsewhere): 40 × 50 ms. */
const FREED_ROW_ATTEMPTS = 40;
const FREED_ROW_RETRY_MS = 50;

/**
 * Chat with a ReAct agent, one conversation per session, kept in a ChatStore (SQLite in the app): each
 * message is one agent turn whose stream, tool calls and result are published as ChatEvents. Streamed
 * events ride the database's group commit and reach subscribers once committed; what a caller is
 * answered (a message taken, a decision, a rename, a delete) is committed before the answer. Input goes
 * through the input pipeline: commands (`/stop`, `/approve`, ...) are intercepted before the agent sees
 * them; a message sent while a turn runs follows the agent's busy-input mode. A turn that reaches a tool
 * needing approval suspends: its transaction and TurnSnapshot are stored, so after a restart the
 * decision still resumes the turn at TOOL without asking the model again. A restart ends any other
 * running turn with `turn_failed`.
 *
 * The parts live in ./chat/: turns (chat-turns.ts), busy input (chat-busy-input.ts), publishing events
 * (chat-publisher.ts); this class loads chats, takes input and relays it to the process running a turn.
 */
export class ChatService {
  private readonly live = new Map<string, LiveSession>();
  /**
   * Messages sent here for an existing chat, taken one at a time in the order they came. A message's
   * handling may wait (its turn's claim of the chat on PostgreSQL, a relayed STEER or INTERRUPT): the
   * next one waits for it, so it is decided against the chat as the first left it, never against a turn
   * whose claim is still on its way and may lose.
   */
  private readonly inputs = new KeyedChain();
  /** Told when a chat is deleted here: its open event streams end (chatEventStream). */
  private readonly removals = new KeyedListeners<string>("chat removal");
  private readonly channel = new InMemoryControlChannel();
  private readonly source: ChatAgentSource | null;
  private readonly store: ChatStore;
  private readonly memory: SessionMemory;
  private readonly publisher: ChatPublisher;
  private readonly turns: ChatTurns;
  /** Start-up's end of orphaned turns (at once on a synchronous store): reads of stored chats come after it. */
  private readonly ready: Awaitable<void>;
  /** On a cluster: delivers stop, STEER and INTERRUPT to the process running a turn (useRelay). */
  private relay: ChatTurnRelay | null = null;

  constructor(
    private readonly options: {
      /** The model's label; null when there is none (the chat then says what to set). */
      model: string | null;
      /** Named agents (the app). */
      agents?: ChatAgentSource | null;
      /** Or one inline agent on this provider (tests): `todo_write` plus `tools`. */
      provider?: LlmProvider | null;
      tools?: readonly Tool[];
      /** Where chats live (default: in memory). */
      store?: ChatStore;
      /** Told when a chat is opened or deleted (the app's SESSION_CREATE / SESSION_DESTROY extension points). */
      sessions?: ChatSessionHooks;
      /** The busy-input mode of agents that name none (default QUEUE). */
      busyInput?: BusyInputMode;
      /** Prices each finished turn's tokens (turn_completed's `cost`); none: no costs. */
      pricing?: TurnPricing;
      /**
       * A process of a PostgreSQL cluster (other processes share the store; see ChatClusterOptions).
       * None: this process is the store's one user, and ends every turn left running at start.
       */
      cluster?: ChatClusterOptions;
      now?: () => number;
    },
  ) {
    this.source = options.agents ?? (options.provider ? inlineSource(options.provider, options.tools ?? []) : null);
    const store = (this.store = options.store ?? new InMemoryChatStore());
    this.memory = { load: async (id) => store.loadMemory(id), save: async (id, messages) => store.saveMemory(id, messages) };
    this.publisher = new ChatPublisher({
      store,
      cluster: !!options.cluster,
      pricing: options.pricing,
      modelOf: (agent) => this.source?.modelOf?.(agent) ?? null,
      now: () => this.now(),
    });
    this.turns = new ChatTurns({ store, publisher: this.publisher, memory: this.memory, owner: this.owner, now: () => this.now() });
    this.ready = options.cluster ? undefined : endOrphanedTurns(this.store, () => this.now());
    if (isPromise(this.ready)) this.ready.catch((error: unknown) => console.error(`[modex] ending the chats' orphaned turns failed: ${describe(error)}`));
  }

  status(): { configured: boolean; model: string | null; message: string | null; defaultAgent: string | null; busyInput: BusyInputMode } {
    const configured = this.source !== null && this.options.model !== null;
    const defaultAgent = this.source?.defaultAgent() ?? null;
    return { configured, model: this.options.model, message: configured ? null : NO_MODEL_MESSAGE, defaultAgent, busyInput: this.busyInputOf(defaultAgent) };
  }

  /** Every chat, most recent first; `query` keeps those whose title or any message sent matches. */
  async list(query?: string): Promise<ChatSessionSummary[]> {
    await this.ready;
    return (await this.store.sessions(query)).map((row) => this.summaryOf(row));
  }

  async get(sessionId: string): Promise<ChatSessionSummary> {
    return this.summaryOf(await this.requireRow(sessionId));
  }

  /** Opens a chat with no message yet (REST, `/new`); answered once committed. */
  async create(args: { agent?: string; title?: string } = {}): Promise<ChatSessionSummary> {
    this.requireConfigured();
    const live = this.open(newSnowflake(), args.agent ?? null, args.title?.trim() || "New chat");
    await this.store.write(() => this.store.createSession(live.row));
    this.options.sessions?.created({ sessionId: live.row.sessionId, agent: live.row.agent, title: live.row.title });
    return this.summaryOf(live.row);
  }

  /**
   * Takes one input (a new chat without `sessionId`): a command runs at once; text starts a turn, or,
   * while a turn runs, is handled by the agent's busy-input mode. Answered once what it wrote committed.
   */
  async send(args: { sessionId?: string; message: string; agent?: string; busyInput?: BusyInputMode }): Promise<SendOutcome> {
    const decision = sessionControl(adaptInput(args.message));
    if (decision.kind === "unknown") return this.answerCommand(args.sessionId ?? null, decision.command, false, decision.message);
    if (decision.kind === "control") return this.command(args.sessionId ?? null, decision.command, decision.reason, args.agent);
    this.requireConfigured();
    const { sessionId, busyInput: override } = args;
    if (sessionId) {
      // Messages of a chat sent here are taken in the order they came, each once the one before is.
      const outcome = await this.inputs.run(sessionId, async () => this.take(await this.settled(sessionId), decision.text, { override, created: false }));
      await this.store.committed();
      return outcome;
    }
    // A new chat: nobody else knows it yet.
    const live = this.open(newSnowflake(), args.agent ?? null, titleOf(decision.text));
    const outcome = await this.take(live, decision.text, { override, created: true });
    await this.store.committed();
    this.options.sessions?.created({ sessionId: live.row.sessionId, agent: live.row.agent, title: live.row.title });
    return outcome;
  }

  /**
   * A message for the chat as it now is: a turn of its own when it is free, else per the busy-input mode
   * (the sender's `override`, or the agent's). A claim of the free chat that another process's turn won
   * first (a message sent there at the same moment) means the chat was busy when this one arrived: it is
   * taken again as such, before any message sent here after it (`inputs`), so messages sent to one
   * process keep their order. `created`: the chat is new (no other process knows it).
   */
  private async take(chat: LiveSession, text: string, { override, created }: { override?: BusyInputMode; created: boolean }): Promise<SendOutcome> {
    const { sessionId } = chat.row;
    for (let live = chat; ; live = await this.settled(sessionId)) {
      const running = live.row.runningTurn;
      const owner = running ? this.remoteOwner(live) : null;
      const mode = override ?? live.busyInput;
      if (running && owner && mode !== "QUEUE") return this.busyElsewhere(live, owner, running, text, mode);
      if (running) return busy(this.publisher, this.turns, live, running, text, override);
      const turnId = await this.turns.startTurn(live, text, { created: created && live === chat });
      if (turnId) return { sessionId, turnId, handled: "started" };
    }
  }

  /**
   * Decides the approval a suspended turn waits on, then resumes the turn in the background: approved,
   * the tool runs and the turn streams on; denied, the model reads the denial (and the reason) and goes
   * on. Publishes `approval_decided` (committed) before the turn resumes. Works after a restart: the
   * transaction and the turn's snapshot come from the store. Errors: NOT_FOUND for an unknown chat or
   * transaction, INVALID_STATE when it was already decided or no turn is suspended on it.
   */
  async decide(args: { sessionId: string; transactionId: string; approved: boolean; reason?: string }): Promise<ChatDecision> {
    const live = await this.require(args.sessionId);
    const stored = await this.store.approval(args.transactionId);
    if (!stored || stored.transaction.sessionId !== args.sessionId) throw notFound("approval", args.transactionId);
    if (stored.transaction.status !== "pending") throw new ServiceError("INVALID_STATE", `approval ${args.transactionId} was already ${stored.transaction.status}`);
    const awaiting = live.awaiting;
    if (!awaiting || awaiting.transaction.id !== args.transactionId || !awaiting.snapshot) {
      throw new ServiceError("INVALID_STATE", `no turn of this chat is suspended on approval ${args.transactionId}`);
    }
    await primeAgent(live.agent, awaiting);
    if (live.awaiting !== awaiting) throw new ServiceError("INVALID_STATE", `approval ${args.transactionId} was decided meanwhile`);
    const reason = args.reason?.trim() || null;
    const decidedAt = this.now();
    const { transaction } = awaiting;
    live.awaiting = null;
    await this.publisher.atomically(() => {
      this.store.saveApproval({ transaction: { ...transaction, status: args.approved ? "approved" : "denied", ...(reason ? { reason } : {}), decidedAt }, snapshot: null });
      // The turn resumes in this process: it is its owner now.
      detach(changeRow(live, { awaitingApproval: null, turnOwner: this.owner }, () => this.store.resumeTurn(live.row.sessionId, transaction.turnId, this.owner)));
      this.publisher.publish(live, transaction.turnId, decidedEvent(transaction, args.approved, reason), decidedAt);
    });
    const decision = { transactionId: transaction.id, approved: args.approved, ...(reason ? { reason } : {}) };
    void this.turns.drive(live, this.turns.openLeg(live, transaction.turnId, null), (signal) => live.resumer.applyResume(decision, { signal }));
    return { transactionId: transaction.id, approved: args.approved, decidedAt };
  }

  /** Decides whatever approval the chat's turn waits on (REST and the CLI: `approve`/`deny` without an id). */
  async decidePending(args: { sessionId: string; approved: boolean; reason?: string }): Promise<ChatDecision> {
    const awaiting = (await this.require(args.sessionId)).awaiting;
    if (!awaiting) throw new ServiceError("INVALID_STATE", "no tool call waits for approval in this chat");
    return this.decide({ ...args, transactionId: awaiting.transaction.id });
  }

  /** A sequence number past every event of the chat given out so far: a stream opened from it sees only what comes next. */
  currentSeq(sessionId: string): Awaitable<number> {
    return this.store.lastSeq(sessionId);
  }

  /**
   * Stops the running turn: a streaming one through the control plane (CANCEL_TURN; the agent ends it
   * with stopReason "cancelled", keeping what streamed); one waiting for approval at once (its approval
   * is denied with the reason "stopped" and the turn ends cancelled).
   */
  async cancel(sessionId: string): Promise<{ cancelled: boolean }> {
    const live = await this.require(sessionId);
    const turnId = live.row.runningTurn;
    if (!turnId) return { cancelled: false };
    if (live.awaiting) {
      await this.turns.stopSuspended(live, live.awaiting);
      await this.store.committed();
      this.turns.startQueued(live);
      return { cancelled: true };
    }
    const owner = this.remoteOwner(live);
    if (owner) return this.cancelElsewhere(live, owner, turnId);
    this.channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId, turnId });
    return { cancelled: true };
  }

  /**
   * On a cluster: cancels `turnId`, run by the live process `owner`, through the relay; answered once
   * the owner accepted it (it stops the turn as a local cancel does). An owner that is gone had its
   * turns ended by the relay's reaper, or by another process's reaper that claimed the turn first (it
   * ends it right after its claim: its end is waited for, as endedElsewhere waits for a freed row):
   * cancelled when the turn no longer runs. PEER_UNAVAILABLE when the owner did not answer in time
   * (nothing is claimed then: the turn may still run), or when nobody ended the gone owner's turn.
   */
  private async cancelElsewhere(live: LiveSession, owner: string, turnId: string): Promise<{ cancelled: boolean }> {
    const { sessionId } = live.row;
    const answer = await this.relay!.ask(owner, { kind: "cancel", sessionId, turnId });
    if (answer !== "gone") return { cancelled: answer.applied };
    for (let attempt = 0; ; attempt++) {
      const row = await this.store.session(sessionId);
      if (row?.runningTurn !== turnId) return { cancelled: true };
      // Still the gone owner's, or this process's (its own pass claimed it and could not end it): nobody ends it now.
      if (row.turnOwner === owner || row.turnOwner === this.owner || attempt >= FREED_ROW_ATTEMPTS) {
        throw new ServiceError("PEER_UNAVAILABLE", `the process running this turn (${owner}) is gone and its turn is not ended yet: try again`);
      }
      await new Promise((r) => setTimeout(r, FREED_ROW_RETRY_MS));
    }
  }

  /**
   * On a cluster: how stop, STEER and INTERRUPT reach a turn another process runs (the cluster's
   * ChatTurnRelay). Without one, they act on turns this process runs only.
   */
  useRelay(relay: ChatTurnRelay): void {
    this.relay = relay;
  }

  /**
   * On a cluster: a stop, STEER or INTERRUPT another process relayed for a turn this one runs, applied
   * as if it had been sent here. `applied` false: the turn does not run here (it ended meanwhile, or is
   * suspended on an approval, which any process decides or stops from the store).
   */
  async applyRelayed(request: RelayedTurnRequest): Promise<{ applied: boolean }> {
    const live = this.live.get(request.sessionId);
    const leg = live?.leg;
    if (!live || !leg || leg.turnId !== request.turnId || live.row.runningTurn !== request.turnId || live.awaiting) return { applied: false };
    if (request.kind === "cancel") {
      this.channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: request.sessionId, turnId: request.turnId });
      return { applied: true };
    }
    // The message is the busy_input event the sending process stored (no size limit on a NOTIFY payload).
    const [event] = await this.store.events(request.sessionId, request.seq - 1, 1);
    if (event?.seq !== request.seq || event.type !== "busy_input") throw new ServiceError("BAD_REQUEST", `no busy-input message ${request.seq} in chat ${request.sessionId}`);
    if (live.leg !== leg) return { applied: false };
    applyBusy(this.turns, live, request.turnId, event.text, event.mode);
    return { applied: true };
  }

  /**
   * On a cluster: the process that runs `live`'s turn when it is another (live or not) one, named on the
   * row; null when this process runs it, or it waits for an approval (the store has all it needs), or
   * there is no relay.
   */
  private remoteOwner(live: LiveSession): string | null {
    const { runningTurn, turnOwner } = live.row;
    if (!this.relay || !runningTurn || live.awaiting || !turnOwner || turnOwner === this.owner) return null;
    return live.leg?.turnId === runningTurn ? null : turnOwner;
  }

  /** Sets the title alone: what another process changed meanwhile (a turn it runs, say) stays. */
  async rename(sessionId: string, title: string): Promise<ChatSessionSummary> {
    const row = await this.requireRow(sessionId);
    const wanted = title.trim().slice(0, 200) || row.title;
    const live = this.live.get(sessionId);
    const renamed = await this.store.write(() => (live ? changeRow(live, { title: wanted }, () => this.store.renameSession(sessionId, wanted)) : this.store.renameSession(sessionId, wanted)));
    if (!renamed) throw notFound("chat", sessionId);
    return this.summaryOf(live && this.live.get(sessionId) === live ? live.row : renamed);
  }

  /** Deletes a chat with its transcript (a running turn is stopped first; what it still streams is dropped). */
  async remove(sessionId: string): Promise<{ deleted: true }> {
    const removed = await this.requireRow(sessionId);
    const live = this.live.get(sessionId);
    if (live) {
      live.deleted = true;
      live.queue.length = 0;
      // Path B: nothing of the turn is kept, so its task is aborted at once.
      const leg = live.row.runningTurn && !live.awaiting ? live.leg : null;
      leg?.abort.abort(new DOMException("the chat was deleted", "AbortError"));
      this.live.delete(sessionId);
      // The aborted turn writes its spans as it unwinds: deleted after them, not before (at most 2 s, as stopTurns).
      for (const deadline = Date.now() + 2_000; leg && live.leg === leg && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
    }
    await this.store.write(() => this.store.deleteSession(sessionId));
    this.removals.publish(sessionId, sessionId);
    this.options.sessions?.destroyed({ sessionId, agent: removed.agent, messageCount: removed.turns });
    return { deleted: true };
  }

  /** One turn's trace: its agent spans (agent → iteration → model call / tool call), earliest first. */
  async trace(sessionId: string, turnId: string): Promise<{ sessionId: string; turnId: string; title: string; spans: SpanRecord[] }> {
    const row = await this.requireRow(sessionId);
    return { sessionId, turnId, title: row.title, spans: await this.store.spans(sessionId, turnId) };
  }

  /** A chat's events after `afterSeq` (at most `limit`). */
  async events(sessionId: string, afterSeq = 0, limit?: number): Promise<ChatEvent[]> {
    await this.requireRow(sessionId);
    return this.store.events(sessionId, afterSeq, limit);
  }

  /**
   * On a cluster: an event committed by any process (read from the store by the cluster's LISTEN feed,
   * in seq order per chat, once), told to this process's subscribers.
   */
  deliver(event: ChatEvent): void {
    this.publisher.notify(event);
    if (this.options.cluster && (event.type === "turn_completed" || event.type === "turn_failed")) this.endedElsewhere(event);
  }

  /**
   * A turn another process ran has ended: messages queued here behind it (sent to this process while
   * it ran there) now start, from the chat as stored. That process frees the chat's row just after the
   * turn's last event, in a commit of its own: the row is read until it does (or names another turn).
   */
  private endedElsewhere(event: ChatEvent, attempt = 0): void {
    const live = this.live.get(event.sessionId);
    if (!live || live.leg !== null || live.awaiting || live.row.runningTurn !== event.turnId) return;
    if (live.queue.length === 0 && live.steer.length === 0) return;
    void Promise.resolve(this.store.session(event.sessionId)).then((row) => {
      if (!row || live.deleted || this.live.get(event.sessionId) !== live || live.row.runningTurn !== event.turnId) return;
      if (row.runningTurn === event.turnId) {
        // Not freed yet. A process that died meanwhile never frees it: the reaper ends the turn, and its
        // turn_failed comes back here.
        if (attempt < FREED_ROW_ATTEMPTS) setTimeout(() => this.endedElsewhere(event, attempt + 1), FREED_ROW_RETRY_MS);
        return;
      }
      live.row = { ...row, agent: live.row.agent };
      this.turns.startQueued(live);
    }, (error: unknown) => console.error(`[modex] a queued chat message did not start: ${describe(error)}`));
  }

  /**
   * On a cluster: ends the running turn `turnId` of a chat whose owner process died (the caller, the
   * cluster's reaper, claimed it first, so no other process ends it too), as a restart ends it on one
   * process: `turn_failed` and the chat free again. Nothing when the chat moved on meanwhile.
   */
  async endOrphanedTurn(sessionId: string, turnId: string): Promise<boolean> {
    const row = await this.store.session(sessionId);
    if (!row || row.runningTurn !== turnId || row.awaitingApproval) return false;
    if (this.live.get(sessionId)?.leg?.turnId === turnId) return false; // it runs here after all
    // A chat loaded here is read again when used; messages queued here behind the turn start once
    // its end comes back through the feed (endedElsewhere).
    return endTurnOf(this.store, row, () => this.now());
  }

  /**
   * Forgets the chats loaded here that run and wait on nothing: their next turn builds its agent from
   * the latest definition (a cluster calls it when another process saved one).
   */
  forgetIdle(): void {
    for (const [id, live] of this.live) if (live.leg === null && live.queue.length === 0 && live.steer.length === 0 && live.awaiting === null) this.live.delete(id);
  }

  /** Calls `listener` once the chat is deleted (in this process). */
  onRemoved(sessionId: string, listener: () => void): () => void {
    return this.removals.subscribe(sessionId, listener);
  }

  /** Tells `listener` the chat's events once committed (a stream checks the chat exists with `events`, see chatEventStream). */
  subscribe(sessionId: string, listener: (e: ChatEvent) => void): () => void {
    return this.publisher.subscribe(sessionId, listener);
  }

  /**
   * A process that stops (SIGTERM on a cluster's web process): the turns it runs end now as a restart
   * ends them (`turn_failed`, what streamed kept, the chat free), rather than when another process finds
   * its heartbeat gone; messages queued here are dropped, as a restart drops them. Waits for the turns'
   * last writes (at most `waitMs`: a tool that ignores its abort signal is not waited for).
   */
  async stopTurns(waitMs = 2_000): Promise<void> {
    this.turns.stop();
    for (const live of this.live.values()) live.leg?.abort.abort(new DOMException("the server is stopping", "AbortError"));
    const deadline = Date.now() + waitMs;
    while ([...this.live.values()].some((l) => l.leg !== null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.store.committed();
  }

  /** Resolves when the session has no running turn, suspended ones aside, and nothing queued (tests, shutdown). */
  async idle(sessionId: string): Promise<void> {
    for (;;) {
      const live = this.live.get(sessionId);
      if (!live || live.awaiting || (!live.row.runningTurn && live.queue.length === 0)) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await this.store.committed();
  }

  // ---- input pipeline: commands and busy input ----

  private async command(sessionId: string | null, command: SessionCommand, reason: string | null, agent?: string): Promise<SendOutcome> {
    if (command === "help") return this.answerCommand(sessionId, "/help", true, helpText());
    if (command === "new") {
      const from = sessionId ? (await this.requireRow(sessionId)).agent : (agent ?? null);
      const created = await this.create({ agent: from ?? undefined });
      return { sessionId: created.sessionId, turnId: null, handled: "command", command: "/new", ok: true, message: `started a new chat (${created.sessionId})` };
    }
    if (!sessionId) return this.answerCommand(null, `/${command}`, false, `/${command} needs a chat: there is no turn to ${command} in a new one`);
    const live = await this.require(sessionId);
    if (command === "stop") {
      const { cancelled } = await this.cancel(sessionId);
      return this.answerCommand(sessionId, "/stop", cancelled, cancelled ? "stopped the running turn" : "no turn is running in this chat");
    }
    const awaiting = live.awaiting;
    if (!awaiting) return this.answerCommand(sessionId, `/${command}`, false, `no tool call waits for approval in this chat`);
    await this.decide({ sessionId, transactionId: awaiting.transaction.id, approved: command === "approve", reason: reason ?? undefined });
    const verb = command === "approve" ? "approved" : "denied";
    return this.answerCommand(sessionId, `/${command}`, true, `${verb} ${awaiting.transaction.call.name}${reason ? `: ${reason}` : ""}`);
  }

  /** A command's answer: also in the transcript (a notice) when the chat exists. */
  private async answerCommand(sessionId: string | null, command: string, ok: boolean, message: string): Promise<SendOutcome> {
    if (sessionId) {
      const live = await this.require(sessionId);
      this.publisher.publish(live, live.row.runningTurn ?? `notice-${newSnowflake()}`, { type: "notice", command, text: message, isError: !ok });
      await this.store.committed();
    }
    return { sessionId: sessionId ?? "", turnId: null, handled: "command", command, ok, message };
  }

  /**
   * On a cluster: a STEER or INTERRUPT message for the turn `owner` runs. Its busy_input event is stored
   * here (the chat shows it at once), then the owner applies it through the relay as `busy` would
   * (answered once it did). Should the turn have ended meanwhile, or its owner be gone (the relay's
   * reaper ended its turns), the message is taken again from the chat as it now is. PEER_UNAVAILABLE
   * when the owner did not answer in time (a notice in the chat says the message was not delivered).
   */
  private async busyElsewhere(live: LiveSession, owner: string, running: string, text: string, mode: BusyInputMode): Promise<SendOutcome> {
    const { sessionId } = live.row;
    const event = await this.store.appendEvent({ type: "busy_input", mode, text, sessionId, turnId: running, at: this.now() } as NewChatEvent);
    let answer: { applied: boolean } | "gone";
    try {
      answer = await this.relay!.ask(owner, { kind: "busy", sessionId, turnId: running, seq: event.seq });
    } catch (error) {
      this.publisher.publish(live, running, { type: "notice", command: "send", text: `not delivered: ${describe(error)}`, isError: true });
      await this.store.committed();
      throw error;
    }
    if (answer !== "gone" && answer.applied) return { sessionId, turnId: running, handled: mode === "STEER" ? "steered" : "interrupted", mode };
    // The turn ended (or is suspended) meanwhile: the chat as stored decides, without a second busy_input.
    for (;;) {
      const now = await this.settled(sessionId);
      const next = now.row.runningTurn;
      if (next) {
        const here = !this.remoteOwner(now) && !(now.awaiting && mode === "STEER");
        const queued = applyBusy(this.turns, now, next, text, here ? mode : "QUEUE");
        await this.store.committed();
        return queued;
      }
      const turnId = await this.turns.startTurn(now, text);
      if (turnId) return { sessionId, turnId, handled: "started" };
    }
  }

  // ---- events ----

  private onAgentEvent(e: AgentEvent): void {
    const sessionId = this.turns.sessionOf(e.turnId);
    const live = sessionId ? this.live.get(sessionId) : undefined;
    if (!live) return;
    if (e.type === "turn_completed") live.completed.add(e.turnId);
    if (live.leg?.turnId === e.turnId) trackLeg(live.leg, e);
    for (const body of toChatEvents(e)) this.publisher.publish(live, e.turnId, body);
  }

  // ---- sessions ----

  private summaryOf(row: ChatSessionRow): ChatSessionSummary {
    const live = this.live.get(row.sessionId);
    return {
      sessionId: row.sessionId,
      title: row.title,
      agent: row.agent,
      turns: row.turns,
      running: row.runningTurn !== null,
      awaitingApproval: row.awaitingApproval !== null,
      busyInput: live?.busyInput ?? this.busyInputOf(row.agent),
      queued: live ? live.queue.length + live.steer.length : 0,
      updatedAt: row.updatedAt,
    };
  }

  private busyInputOf(agent: string | null): BusyInputMode {
    return this.source?.busyInput?.(agent) ?? this.options.busyInput ?? DEFAULT_BUSY_INPUT;
  }

  /** A new chat, not yet stored (the caller writes its row with its first event). */
  private open(sessionId: string, agentName: string | null, title: string): LiveSession {
    const at = this.now();
    const row: ChatSessionRow = { sessionId, title, agent: agentName, turns: 0, runningTurn: null, awaitingApproval: null, createdAt: at, updatedAt: at };
    return this.load(row, null);
  }

  /** Builds a chat's agent (its agent was fixed when it started: approvals resume on the same definition). */
  private load(row: ChatSessionRow, awaiting: ChatApprovalRow | null): LiveSession {
    if (!this.source) throw new ServiceError("INVALID_STATE", NO_MODEL_MESSAGE);
    const runtime = { channel: this.channel, memory: this.memory, onEvent: (e: AgentEvent) => this.onAgentEvent(e), now: () => this.now() };
    const { name, agent } = this.source.build(row.agent, runtime);
    const live: LiveSession = {
      row: { ...row, agent: name },
      agent,
      resumer: new ApprovalResumer(agent, () => this.now()),
      busyInput: this.busyInputOf(name),
      awaiting,
      queue: [],
      steer: [],
      completed: new Set(),
      leg: null,
      claiming: null,
      deleted: false,
      changes: 0,
    };
    agent.hooks.register({ hook: new SteerHook((id) => this.takeSteer(id), (id, turnId, texts) => this.steered(id, turnId, texts)), name: "chat_steer" });
    this.live.set(row.sessionId, live);
    return live;
  }

  private takeSteer(sessionId: string): string[] {
    return this.live.get(sessionId)?.steer.splice(0) ?? [];
  }

  private steered(sessionId: string, turnId: string, texts: string[]): void {
    const live = this.live.get(sessionId);
    if (live) for (const text of texts) this.publisher.publish(live, turnId, { type: "notice", command: "steer", text: `${STEERED}${text}`, isError: false });
  }

  /**
   * The chat loaded here once no turn's claim of it is on its way (a queued message starting, say): a
   * claim may lose to another process's turn, and a message decided meanwhile would be decided against
   * a turn that never runs.
   */
  private async settled(sessionId: string): Promise<LiveSession> {
    for (;;) {
      const live = await this.require(sessionId);
      if (!live.claiming) return live;
      await live.claiming.catch(() => undefined);
    }
  }

  /** The chat loaded in this process (loading it from the store first, when it is not). */
  private require(sessionId: string): Awaitable<LiveSession> {
    const live = this.live.get(sessionId);
    if (live && !this.stale(live)) return live;
    this.requireConfigured();
    return chain(this.requireRow(sessionId), (row) => {
      // Another call may have loaded it while the store answered: one LiveSession per chat.
      const current = this.live.get(sessionId);
      if (current && (!this.stale(current) || sameTurn(current.row, row))) {
        if (this.stale(current)) current.row = { ...row, agent: current.row.agent };
        return current;
      }
      return chain(row.awaitingApproval ? this.store.approval(row.awaitingApproval) : null, (awaiting) =>
        chain(this.pendingInput(row), (pending) => {
          const again = this.live.get(sessionId);
          if (again && again !== current) return again;
          const live = this.load(row, awaiting);
          live.queue.push(...pending.queue);
          live.steer.push(...pending.steer);
          return live;
        }),
      );
    });
  }

  /**
   * Messages acknowledged as queued (or steering) behind the running turn of a chat this process loads
   * from the store. On one process that means it restarted, and they were in the memory of the one
   * before: a turn waiting for approval survives a restart, and so do they (read back from the event
   * log). On a cluster another process may hold them still: none are taken.
   */
  private pendingInput(row: ChatSessionRow): Awaitable<PendingInput> {
    if (this.options.cluster || !row.runningTurn) return { queue: [], steer: [] };
    return chain(this.store.events(row.sessionId, 0), pendingInputOf);
  }

  private requireRow(sessionId: string): Awaitable<ChatSessionRow> {
    const live = this.live.get(sessionId);
    if (live && !this.stale(live)) return live.row;
    return chain(this.ready, () =>
      chain(this.store.session(sessionId), (row) => {
        if (!row) throw notFound("chat", sessionId);
        return row;
      }),
    );
  }

  /**
   * On a cluster, a chat loaded here may be behind the store: another process may have run turns of it,
   * ended one or decided its approval. One with nothing running or queued here is read again when used
   * (and loaded anew when its turn changed); one this process drives is current.
   */
  private stale(live: LiveSession): boolean {
    return !!this.options.cluster && live.leg === null && live.queue.length === 0 && live.steer.length === 0;
  }

  private requireConfigured(): void {
    if (!this.status().configured) throw new ServiceError("INVALID_STATE", NO_MODEL_MESSAGE);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The process that runs the turns this one starts (on a cluster), stored with them. */
  private get owner(): string | null {
    return this.options.cluster?.owner ?? null;
  }
}
/** After a restart the agent's own stores are empty: give it the transaction and snapshot the chat kept. */
async function primeAgent(agent: ReactAgent, awaiting: ChatApprovalRow): Promise<void> {
  const { transaction, snapshot } = awaiting;
  if (!(await agent.approvals.get(transaction.id))) await agent.approvals.save(transaction);
  if (snapshot && !(await agent.snapshots.load(transaction.turnId))) await agent.snapshots.save(snapshot);
}


function titleOf(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * A session's events after `afterSeq`, then live until `signal` aborts, or until the chat is deleted
 * (nothing more will come: the stream ends rather than waiting forever).
 */
export async function* chatEventStream(chat: ChatService, sessionId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
  const ended = new AbortController();
  const end = () => ended.abort();
  const offRemoved = chat.onRemoved(sessionId, end);
  signal?.addEventListener("abort", end, { once: true });
  if (signal?.aborted) end();
  try {
    yield* liveStream({
      subscribe: (listener) => chat.subscribe(sessionId, listener),
      replay: (after) => chat.events(sessionId, after),
      keyOf: (e) => e.seq,
      after: afterSeq,
      signal: ended.signal,
    });
  } finally {
    offRemoved();
    signal?.removeEventListener("abort", end);
  }
}
