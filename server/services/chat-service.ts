import { InMemoryControlChannel } from "@/server/agent/control/in-memory-control-channel";
import { adaptInput } from "@/server/agent/input/input-adapter";
import { sessionControl } from "@/server/agent/input/session-control";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import type { Tool } from "@/server/agent/tools/tool";
import type { SpanRecord } from "@/server/agent/trace/span-record";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import { newSnowflake } from "@/server/graph/ids";
import { KeyedChain } from "@/server/graph/keyed-chain";
import { NO_MODEL_MESSAGE } from "./agents/model-providers";
import { decideApproval, type DecideArgs } from "./chat/chat-approvals";
import { busy } from "./chat/chat-busy-input";
import { answerCommand, runCommand, type ChatCommandTarget } from "./chat/chat-commands";
import type { BusyInputMode, ChatEvent } from "./chat/chat-event";
import { ChatPublisher, describe } from "./chat/chat-publisher";
import { ChatSessions } from "./chat/chat-sessions";
import { InMemoryChatStore, type ChatSessionRow, type ChatStore } from "./chat/chat-store";
import { UNTITLED } from "./chat/chat-title";
import { ChatTurns } from "./chat/chat-turns";
import type { ChatAgentSource, ChatClusterOptions, ChatDecision, ChatFiles, ChatSessionSummary, ChatTurnRelay, RelayedTurnRequest, SendOutcome, TurnPricing } from "./chat/chat-types";
import { inlineSource } from "./chat/inline-agent-source";
import { changeRow, type LiveSession } from "./chat/live-session";
import { endOrphanedTurns, endTurnOf, type ResumableTurn } from "./chat/orphaned-turns";
import { RemoteTurns } from "./chat/remote-turns";
import { notFound, ServiceError } from "./errors";
import type { ChatSessionHooks } from "./extensions/session-points";
import { KeyedListeners } from "./keyed-listeners";

export type { BusyInputMode, ChatEvent } from "./chat/chat-event";
export { BUSY_INPUT_MODES } from "./chat/chat-event";
export { chatEventStream } from "./chat/chat-event-stream";
export type { ChatAgentSource, ChatClusterOptions, ChatDecision, ChatFiles, ChatSessionSummary, ChatTurnRelay, RelayedTurnRequest, SendOutcome, TurnPricing } from "./chat/chat-types";
export { CHAT_SYSTEM_PROMPT } from "./chat/inline-agent-source";

/**
 * Chat with a ReAct agent, one conversation per session, kept in a ChatStore (SQLite in the app): each
 * message is one agent turn whose stream, tool calls and result are published as ChatEvents. Streamed
 * events ride the database's group commit and reach subscribers once committed; what a caller is
 * answered (a message taken, a decision, a rename, a delete) is committed before the answer. Input goes
 * through the input pipeline: commands (`/stop`, `/approve`, ...) are intercepted before the agent sees
 * them; a message sent while a turn runs follows the agent's busy-input mode, and is stored as waiting
 * (ChatInputRow) before it is acknowledged. A turn that reaches a tool needing approval suspends: its
 * transaction and TurnSnapshot are stored, so after a restart the decision still resumes the turn at
 * TOOL without asking the model again. After each iteration whose tools finished, a running turn's
 * checkpoint is stored (chat-checkpoints.ts): a restart resumes such a turn from it (at most
 * MAX_CHECKPOINT_RESUMES times), and ends any other running turn with `turn_failed`; the messages waiting
 * behind a turn run, in order, once it ends.
 *
 * The parts live in ./chat/: loaded chats (chat-sessions.ts), turns (chat-turns.ts), busy input
 * (chat-busy-input.ts), slash commands (chat-commands.ts), turns other processes run (remote-turns.ts),
 * publishing events (chat-publisher.ts); this class takes input and answers for the chat as a whole.
 */
export class ChatService {
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
  private readonly publisher: ChatPublisher;
  private readonly sessions: ChatSessions;
  /** What slash commands act through. */
  private readonly commands: ChatCommandTarget;
  private readonly memory: SessionMemory;
  private readonly turns: ChatTurns;
  private readonly remote: RemoteTurns;
  /**
   * Start-up's end of orphaned turns (those it may resume from a checkpoint answered, still running):
   * reads of stored chats come after it.
   */
  private readonly ended: Awaitable<ResumableTurn[]>;
  /**
   * That end, then the start of the messages that waited behind those turns: a message sent after a
   * restart runs after them, not before.
   */
  private readonly ready: Awaitable<void>;

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
      /** The files a chat's turns left (oversized tool results), deleted with the chat. */
      files?: ChatFiles;
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
    const now = () => this.now();
    const owner = options.cluster?.owner ?? null;
    this.memory = { load: async (id) => store.loadMemory(id), save: async (id, messages) => store.saveMemory(id, messages) };
    this.publisher = new ChatPublisher({ store, cluster: !!options.cluster, pricing: options.pricing, modelOf: (agent) => this.source?.modelOf?.(agent) ?? null, now });
    this.turns = new ChatTurns({ store, publisher: this.publisher, memory: this.memory, owner, now });
    this.sessions = new ChatSessions({
      source: this.source,
      store,
      memory: this.memory,
      channel: this.channel,
      publisher: this.publisher,
      turns: this.turns,
      cluster: !!options.cluster,
      busyInput: options.busyInput,
      requireConfigured: () => this.requireConfigured(),
      ready: () => chain(this.ended, () => undefined),
      now,
    });
    this.commands = {
      sessions: this.sessions,
      store,
      publisher: this.publisher,
      create: (args) => this.create(args),
      cancel: (id) => this.cancel(id),
      decide: (args) => this.decide(args),
    };
    this.remote = new RemoteTurns({ sessions: this.sessions, store, publisher: this.publisher, turns: this.turns, channel: this.channel, owner, now });
    // One process: every turn left running died with the process before. One with an iteration
    // checkpoint resumes from it; the others end, and what waited behind them runs now.
    this.ended = options.cluster ? [] : endOrphanedTurns(store, now);
    if (isPromise(this.ended)) this.ended.catch((error: unknown) => console.error(`[modex] ending the chats' orphaned turns failed: ${describe(error)}`));
    this.ready = options.cluster
      ? undefined
      : chain(this.ended, (resumable) =>
          this.resumeAll(resumable)
            .then(() => this.deliverWaiting())
            .then(
              () => undefined,
              (error: unknown) => console.error(`[modex] starting the chats' waiting messages failed: ${describe(error)}`),
            ),
        );
    if (isPromise(this.ready)) this.ready.catch(() => {}); // logged above: ended's own catch
  }

  status(): { configured: boolean; model: string | null; message: string | null; defaultAgent: string | null; busyInput: BusyInputMode } {
    const configured = this.source !== null && this.options.model !== null;
    const defaultAgent = this.source?.defaultAgent() ?? null;
    return { configured, model: this.options.model, message: configured ? null : NO_MODEL_MESSAGE, defaultAgent, busyInput: this.sessions.busyInputOf(defaultAgent) };
  }

  /** Every chat, most recent first; `query` keeps those whose title or any message sent matches. */
  async list(query?: string): Promise<ChatSessionSummary[]> {
    await this.ready;
    const rows = await this.store.sessions(query);
    const queued = await this.store.waitingCounts(rows.map((r) => r.sessionId));
    return rows.map((row) => this.sessions.summaryOf(row, queued.get(row.sessionId) ?? 0));
  }

  async get(sessionId: string): Promise<ChatSessionSummary> {
    return this.summary(await this.sessions.requireRow(sessionId));
  }

  /** The summary of one chat, with what waits behind its turn as stored (what any process of a cluster holds). */
  private async summary(row: ChatSessionRow): Promise<ChatSessionSummary> {
    const queued = await this.store.waitingCounts([row.sessionId]);
    return this.sessions.summaryOf(row, queued.get(row.sessionId) ?? 0);
  }

  /** Opens a chat with no message yet (REST, `/new`); untitled, its first message titles it. Answered once committed. */
  async create(args: { agent?: string; title?: string } = {}): Promise<ChatSessionSummary> {
    this.requireConfigured();
    const live = this.sessions.open(newSnowflake(), args.agent ?? null, args.title?.trim().slice(0, 200) || UNTITLED);
    await this.store.write(() => this.store.createSession(live.row));
    this.options.sessions?.created({ sessionId: live.row.sessionId, agent: live.row.agent, title: live.row.title });
    return this.sessions.summaryOf(live.row, 0);
  }

  /**
   * Takes one input (a new chat without `sessionId`): a command runs at once; text starts a turn, or,
   * while a turn runs, is handled by the agent's busy-input mode. Answered once what it wrote committed.
   */
  async send(args: { sessionId?: string; message: string; agent?: string; busyInput?: BusyInputMode }): Promise<SendOutcome> {
    const decision = sessionControl(adaptInput(args.message));
    const sessionId = args.sessionId ?? null;
    if (decision.kind === "unknown") return answerCommand(this.commands, { sessionId, command: decision.command, ok: false, message: decision.message });
    if (decision.kind === "control") return runCommand(this.commands, { sessionId, command: decision.command, reason: decision.reason, agent: args.agent });
    this.requireConfigured();
    await this.ready;
    const override = args.busyInput;
    if (sessionId) {
      // Messages of a chat sent here are taken in the order they came, each once the one before is.
      const outcome = await this.inputs.run(sessionId, async () => this.take(await this.sessions.settled(sessionId), decision.text, { override, created: false }));
      await this.store.committed();
      return outcome;
    }
    // A new chat: nobody else knows it yet. Its first turn titles it, as any untitled chat's does.
    const live = this.sessions.open(newSnowflake(), args.agent ?? null, UNTITLED);
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
    for (let live = chat; ; live = await this.sessions.settled(sessionId)) {
      const running = live.row.runningTurn;
      const owner = running ? this.remote.ownerOf(live) : null;
      const mode = override ?? live.busyInput;
      if (running && owner && mode !== "QUEUE") return this.remote.busy(live, owner, running, text, mode);
      if (running) return busy({ publisher: this.publisher, store: this.store, turns: this.turns, now: () => this.now() }, live, running, text, override);
      const turnId = await this.turns.startTurn(live, text, { created: created && live === chat });
      if (turnId) return { sessionId, turnId, handled: "started" };
    }
  }

  /** Decides the approval a suspended turn waits on, then resumes the turn in the background (chat-approvals.ts). */
  decide(args: DecideArgs): Promise<ChatDecision> {
    const { sessions, store, publisher, turns } = this;
    return decideApproval({ sessions, store, publisher, turns, owner: this.options.cluster?.owner ?? null, now: () => this.now() }, args);
  }

  /** Decides whatever approval the chat's turn waits on (REST and the CLI: `approve`/`deny` without an id). */
  async decidePending(args: { sessionId: string; approved: boolean; reason?: string }): Promise<ChatDecision> {
    const awaiting = (await this.sessions.require(args.sessionId)).awaiting;
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
   * is denied with the reason "stopped" and the turn ends cancelled). On a cluster, a turn another
   * process runs is stopped there (RemoteTurns).
   */
  async cancel(sessionId: string): Promise<{ cancelled: boolean }> {
    const live = await this.sessions.require(sessionId);
    const turnId = live.row.runningTurn;
    if (!turnId) return { cancelled: false };
    if (live.awaiting) {
      await this.turns.stopSuspended(live, live.awaiting);
      await this.store.committed();
      this.turns.startQueued(live);
      return { cancelled: true };
    }
    const owner = this.remote.ownerOf(live);
    if (owner) return this.remote.cancel(live, owner, turnId);
    this.channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId, turnId });
    return { cancelled: true };
  }

  /**
   * On a cluster: how stop, STEER and INTERRUPT reach a turn another process runs (the cluster's
   * ChatTurnRelay). Without one, they act on turns this process runs only.
   */
  useRelay(relay: ChatTurnRelay): void {
    this.remote.use(relay);
  }

  /** On a cluster: a stop, STEER or INTERRUPT another process relayed for a turn this one runs (RemoteTurns.apply). */
  applyRelayed(request: RelayedTurnRequest): Promise<{ applied: boolean }> {
    return this.remote.apply(request);
  }

  /** Sets the title alone: what another process changed meanwhile (a turn it runs, say) stays. */
  async rename(sessionId: string, title: string): Promise<ChatSessionSummary> {
    const row = await this.sessions.requireRow(sessionId);
    const wanted = title.trim().slice(0, 200) || row.title;
    const live = this.sessions.get(sessionId);
    const renamed = await this.store.write(() => (live ? changeRow(live, { title: wanted }, () => this.store.renameSession(sessionId, wanted)) : this.store.renameSession(sessionId, wanted)));
    if (!renamed) throw notFound("chat", sessionId);
    return this.summary(live && this.sessions.get(sessionId) === live ? live.row : renamed);
  }

  /**
   * Deletes a chat with its transcript, what waited behind its turn and the files its turns left (a
   * running turn is stopped first; what it still streams is dropped).
   */
  async remove(sessionId: string): Promise<{ deleted: true }> {
    const removed = await this.sessions.requireRow(sessionId);
    const live = this.sessions.get(sessionId);
    if (live) {
      live.deleted = true;
      live.queue.length = 0;
      // Path B: nothing of the turn is kept, so its task is aborted at once.
      const leg = live.row.runningTurn && !live.awaiting ? live.leg : null;
      leg?.abort.abort(new DOMException("the chat was deleted", "AbortError"));
      this.sessions.drop(sessionId);
      // The aborted turn writes its spans (and any oversized tool result) as it unwinds: deleted after them, not before (at most 2 s, as stopTurns).
      for (const deadline = Date.now() + 2_000; leg && live.leg === leg && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
    }
    await this.store.write(() => this.store.deleteSession(sessionId));
    try {
      await this.options.files?.remove(sessionId);
    } catch (error) {
      console.error(`[modex] the files of chat ${sessionId} were not all deleted: ${describe(error)}`);
    }
    this.removals.publish(sessionId, sessionId);
    this.options.sessions?.destroyed({ sessionId, agent: removed.agent, messageCount: removed.turns });
    return { deleted: true };
  }

  /** One turn's trace: its agent spans (agent → iteration → model call / tool call), earliest first. */
  async trace(sessionId: string, turnId: string): Promise<{ sessionId: string; turnId: string; title: string; spans: SpanRecord[] }> {
    const row = await this.sessions.requireRow(sessionId);
    return { sessionId, turnId, title: row.title, spans: await this.store.spans(sessionId, turnId) };
  }

  /** A chat's events after `afterSeq` (at most `limit`). */
  async events(sessionId: string, afterSeq = 0, limit?: number): Promise<ChatEvent[]> {
    await this.sessions.requireRow(sessionId);
    return this.store.events(sessionId, afterSeq, limit);
  }

  /**
   * On a cluster: an event committed by any process (read from the store by the cluster's LISTEN feed,
   * in seq order per chat, once), told to this process's subscribers.
   */
  deliver(event: ChatEvent): void {
    this.publisher.notify(event);
    if (this.options.cluster && (event.type === "turn_completed" || event.type === "turn_failed")) this.remote.endedElsewhere(event);
  }

  /**
   * On a cluster: settles the running turn `turnId` of a chat whose owner process died (the caller, the
   * cluster's reaper, claimed it first: this process owns it now), as a restart does on one process: a
   * turn with a checkpoint resumes here; any other ends (`turn_failed`, the chat free again, what waited
   * behind it runs). True when it did either; nothing when the chat moved on meanwhile.
   */
  async endOrphanedTurn(sessionId: string, turnId: string): Promise<boolean> {
    const outcome = await this.remote.endOrphaned(sessionId, turnId);
    if ("resume" in outcome) {
      await this.resumeAll([outcome.resume]);
      return true;
    }
    if (outcome.ended) await this.deliverWaiting({ sessionIds: [sessionId] });
    return outcome.ended;
  }

  /**
   * Resumes turns whose process died from their iteration checkpoints, in this process (at start-up on
   * one process; on a cluster, a turn the reaper claimed): the chat's messages waiting behind a turn run
   * once it ends. A resume that fails to start ends the turn as a restart without a checkpoint does.
   */
  private async resumeAll(turns: readonly ResumableTurn[]): Promise<void> {
    for (const { sessionId, checkpoint } of turns) {
      try {
        const live = await this.sessions.require(sessionId);
        await this.turns.resumeCheckpoint(live, checkpoint);
      } catch (error) {
        console.error(`[modex] the turn ${checkpoint.turnId} of chat ${sessionId} did not resume: ${describe(error)}`);
        const row = await Promise.resolve(this.store.session(sessionId)).catch(() => null);
        if (row?.runningTurn === checkpoint.turnId) await Promise.resolve(endTurnOf(this.store, row, () => this.now())).catch(() => false);
      }
    }
  }

  /**
   * Starts the waiting messages (ChatInputRow) of each free chat that has some, in order, from the store:
   * at start-up on one process (those behind the turns the restart ended), and on a cluster from the
   * reaper: behind a dead process's turn it ended, and in chats left free for `idleMs` with messages
   * still waiting (their sender died before it could start them). Answers the chats it started (a
   * claim may still lose to a turn started meanwhile: that turn's end runs them).
   */
  async deliverWaiting({ idleMs = null, sessionIds }: { idleMs?: number | null; sessionIds?: readonly string[] } = {}): Promise<string[]> {
    if (!this.status().configured) return []; // they wait for a model
    const ids = sessionIds ?? (await this.store.waitingSessions(idleMs === null ? null : this.now() - idleMs));
    const started: string[] = [];
    for (const id of ids) {
      try {
        const live = await this.sessions.require(id);
        if (live.row.runningTurn || live.claiming) continue;
        const waiting = await this.store.waitingInputs(id);
        if (waiting.length === 0 || live.row.runningTurn || live.claiming) continue;
        live.steer = [];
        live.queue = waiting;
        this.turns.startQueued(live);
        started.push(id);
      } catch (error) {
        console.error(`[modex] the messages waiting in chat ${id} did not start: ${describe(error)}`);
      }
    }
    return started;
  }

  /**
   * Forgets the chats loaded here that run and wait on nothing: their next turn builds its agent from
   * the latest definition (a cluster calls it when another process saved one).
   */
  forgetIdle(): void {
    this.sessions.forgetIdle();
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
   * its heartbeat gone; messages waiting behind them stay stored, and run at the next start (or on
   * another process of the cluster). Waits for the turns' last writes (at most `waitMs`: a tool that
   * ignores its abort signal is not waited for).
   */
  async stopTurns(waitMs = 2_000): Promise<void> {
    this.turns.stop();
    for (const live of this.sessions.loaded()) live.leg?.abort.abort(new DOMException("the server is stopping", "AbortError"));
    const deadline = Date.now() + waitMs;
    while ([...this.sessions.loaded()].some((l) => l.leg !== null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.store.committed();
  }

  /** Resolves when the session has no running turn, suspended ones aside, and nothing queued (tests, shutdown). */
  async idle(sessionId: string): Promise<void> {
    await this.ready;
    for (;;) {
      // On a cluster a chat idle here is read again (another process may run, or have ended, its turn).
      const live = this.options.cluster && this.sessions.get(sessionId) ? await Promise.resolve(this.sessions.require(sessionId)).catch(() => undefined) : this.sessions.get(sessionId);
      if (!live || live.awaiting || (!live.row.runningTurn && !live.claiming && live.queue.length === 0)) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await this.store.committed();
  }

  private requireConfigured(): void {
    if (!this.status().configured) throw new ServiceError("INVALID_STATE", NO_MODEL_MESSAGE);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}
