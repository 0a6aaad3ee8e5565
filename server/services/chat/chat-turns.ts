import type { ApprovalTransaction } from "@/server/agent/approval/approval-types";
import { restoreTurn, snapshotTurn, type TurnSnapshot } from "@/server/agent/approval/turn-snapshot";
import { TurnCustomKeys } from "@/server/agent/state/turn-custom-keys";
import { isAbortError } from "@/server/agent/errors";
import { interruptedMessage } from "@/server/agent/llm/interrupted-message";
import type { AgentRunOutcome } from "@/server/agent/react/react-agent";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import { newSnowflake } from "@/server/graph/ids";
import { completedEvent, decidedEvent, settleCallUsage } from "./chat-agent-events";
import { describe, detach, lostWrite, type ChatPublisher } from "./chat-publisher";
import { inputOrder, type ChatApprovalRow, type ChatInputRow, type ChatSessionRow, type ChatStore } from "./chat-store";
import { titleOf, UNTITLED } from "./chat-title";
import { changeRow, newLeg, type Leg, type LiveSession } from "./live-session";
import { RESTART_MESSAGE, resumesOf } from "./orphaned-turns";

/**
 * A chat's turns in this process: a turn claims the chat's row with its first events, runs in legs (the
 * first, and one after each approval decision), and at its end frees the chat and starts what was queued.
 */
export class ChatTurns {
  /** The chat of each turn that runs here (agent events name only the turn). */
  private readonly turnSession = new Map<string, string>();
  /** The process stops (stop): turns end as a restart ends them, and nothing queued starts. */
  private stopping = false;
  private readonly store: ChatStore;
  private readonly publisher: ChatPublisher;
  private readonly memory: SessionMemory;
  /** The process that runs the turns this one starts (on a cluster), stored with them. */
  private readonly owner: string | null;
  private readonly now: () => number;

  constructor(options: { store: ChatStore; publisher: ChatPublisher; memory: SessionMemory; owner: string | null; now: () => number }) {
    ({ store: this.store, publisher: this.publisher, memory: this.memory, owner: this.owner, now: this.now } = options);
  }

  /** The chat whose turn `turnId` runs here (undefined: none does). */
  sessionOf(turnId: string): string | undefined {
    return this.turnSession.get(turnId);
  }

  /** The process stops: turns that end from now on end as a restart ends them, and nothing queued starts. */
  stop(): void {
    this.stopping = true;
  }

  /**
   * Starts a turn of `text` if the chat is free as stored: the turn claims the chat's row and its first
   * events are stored with the claim, in one commit; it runs once that committed. Answers its id, or null
   * when another turn claimed the chat first (another process's, started at the same moment): nothing of
   * this turn was stored, it never runs, and `live.row` is the chat as stored now. A failed commit rejects
   * (nothing runs either). `created`: the chat is new, its row is written with the turn. `input`: the
   * waiting input the turn runs (it claims the chat only while that input waits, and marks it started).
   */
  startTurn(live: LiveSession, text: string, { queued = false, created = false, input = null }: { queued?: boolean; created?: boolean; input?: string | null } = {}): Awaitable<string | null> {
    const turnId = newSnowflake();
    const { sessionId } = live.row;
    const before = live.row;
    // The turn is this process's while its claim is on its way (a stop or relayed request finds it); a
    // message sent here meanwhile waits for the claim's outcome (`claiming`, ChatService.take).
    const leg = this.openLeg(live, turnId, text);
    const run = (claimed: ChatSessionRow | null): Awaitable<string | null> => {
      if (!claimed) return this.lostClaim(live, leg);
      void this.drive(live, leg, (signal) => live.agent.run(text, { sessionId, turnId, signal }));
      return turnId;
    };
    const fail = (error: unknown): never => {
      this.closeLeg(live, leg);
      if (live.row.runningTurn === turnId) live.row = before;
      throw error;
    };
    let outcome: Awaitable<string | null>;
    try {
      outcome = chain(this.claim(live, turnId, text, { queued, created, input }), run);
    } catch (error) {
      return fail(error);
    }
    if (!isPromise(outcome)) return outcome;
    const claiming = outcome.catch(fail);
    live.claiming = claiming;
    const settled = () => {
      if (live.claiming === claiming) live.claiming = null;
    };
    claiming.then(settled, settled);
    return claiming;
  }

  /**
   * Claims the free chat for `turnId`, its first events stored with the claim (one commit); an untitled
   * chat's first turn names it. Answers the row claimed; null: another turn runs (or `input` no longer waits).
   */
  private claim(live: LiveSession, turnId: string, text: string, { queued, created, input }: { queued: boolean; created: boolean; input: string | null }): Awaitable<ChatSessionRow | null> {
    let claimed: Awaitable<ChatSessionRow | null> = null;
    const written = this.publisher.atomically(() => {
      if (created) this.store.createSession(live.row);
      const title = live.row.turns === 0 && live.row.title === UNTITLED ? titleOf(text) : null;
      const start = { sessionId: live.row.sessionId, turnId, owner: this.owner, at: this.now(), input, title };
      const patch = {
        runningTurn: turnId,
        turnOwner: this.owner,
        awaitingApproval: null,
        turns: live.row.turns + 1,
        updatedAt: Math.max(live.row.updatedAt, start.at),
        ...(title ? { title } : {}),
      };
      claimed = changeRow(live, patch, () => this.store.startTurn(start));
      this.publisher.publishWhileRunning(live, turnId, queued ? { type: "queued_started", text } : { type: "user_message", text });
      if (queued) this.publisher.publishWhileRunning(live, turnId, { type: "user_message", text });
    });
    return chain(written, () => claimed);
  }

  /** The turn of `leg` lost its claim: it never runs here, and the chat is what the store now has (answers null). */
  private lostClaim(live: LiveSession, leg: Leg): Awaitable<null> {
    this.closeLeg(live, leg);
    if (live.deleted) return null;
    return chain(this.store.session(live.row.sessionId), (stored) => {
      if (stored && live.row.runningTurn === leg.turnId) live.row = { ...stored, agent: live.row.agent };
      return null;
    });
  }

  /**
   * Starts the chat's next waiting message held here as a turn of its own, once the chat is free. Each
   * is a waiting row of the store, claimed with the chat (TurnStart.input): a claim lost to another
   * process's turn leaves it first in line for that turn's end (ChatService.deliver starts it then),
   * and one that another process started already (a recovery's delivery) is dropped from here.
   */
  startQueued(live: LiveSession): void {
    if (live.deleted || live.row.runningTurn || this.stopping) return;
    // Steering that came too late for the turn's last model call runs as a turn of its own, in the
    // order it came among the queued messages (the store's order, which a restart delivers in).
    if (live.steer.length > 0) live.queue = [...live.queue, ...live.steer.splice(0)].sort(inputOrder);
    const next = live.queue.shift();
    if (next === undefined) return;
    const lost = () => {
      live.queue.unshift(next);
      this.dropIfStarted(live, next);
    };
    let started: Awaitable<string | null>;
    try {
      started = this.startTurn(live, next.text, { queued: true, input: next.inputId });
    } catch (error) {
      live.queue.unshift(next);
      return lostWrite(error);
    }
    if (!isPromise(started)) {
      if (started === null) lost();
      return;
    }
    started.then(
      (turnId) => turnId ?? lost(),
      (error: unknown) => {
        live.queue.unshift(next);
        console.error(`[modex] a queued chat message did not start: ${describe(error)}`);
      },
    );
  }

  /**
   * The claim for `input` lost: it stays first in line, unless it no longer waits in the store (another
   * process started it: a recovery's delivery), then it leaves this process's queue; what is left starts
   * once the chat is free.
   */
  private dropIfStarted(live: LiveSession, input: ChatInputRow): void {
    const check = (rows: ChatInputRow[]) => {
      if (!rows.some((r) => r.inputId === input.inputId)) live.queue = live.queue.filter((i) => i !== input);
      this.startQueued(live);
    };
    let rows: Awaitable<ChatInputRow[]>;
    try {
      rows = this.store.waitingInputs(live.row.sessionId);
    } catch (error) {
      return lostWrite(error);
    }
    if (isPromise(rows)) rows.then(check, (error: unknown) => console.error(`[modex] a queued chat message did not start: ${describe(error)}`));
    else check(rows);
  }

  /**
   * Resumes a turn whose process died from its iteration checkpoint (orphaned-turns.ts found it; on a
   * cluster this process claimed it): the count of resumes is raised in the checkpoint and a `resume`
   * notice published, in one commit, before the turn runs again; then its next model call goes on from
   * the messages saved, tool results included, so no tool before the checkpoint runs again. What
   * streamed after the checkpoint stays in the chat's events, before the notice (the chat view drops
   * it from the answer), and is streamed anew.
   */
  async resumeCheckpoint(live: LiveSession, checkpoint: TurnSnapshot): Promise<void> {
    const { turnId } = checkpoint;
    if (live.deleted || live.row.runningTurn !== turnId || live.leg) return;
    const turn = restoreTurn(checkpoint);
    const resumes = resumesOf(checkpoint) + 1;
    turn.custom.set(TurnCustomKeys.CHECKPOINT_RESUMES, resumes);
    const leg = this.openLeg(live, turnId, null);
    try {
      await this.publisher.atomically(() => {
        this.store.saveCheckpoint(snapshotTurn(turn, checkpoint.resumeTarget, this.now()));
        this.publisher.publishWhileRunning(live, turnId, { type: "notice", command: "resume", text: resumedText(checkpoint, resumes), isError: false });
      });
    } catch (error) {
      this.closeLeg(live, leg);
      throw error;
    }
    void this.drive(live, leg, (signal) => live.agent.resumeCheckpoint({ turn, signal }));
  }

  /** The turn `turnId` runs here from now: aborts and relayed requests reach it, messages sent here wait behind it. */
  openLeg(live: LiveSession, turnId: string, input: string | null): Leg {
    this.turnSession.set(turnId, live.row.sessionId);
    return (live.leg = newLeg(turnId, input));
  }

  private closeLeg(live: LiveSession, leg: Leg): void {
    if (live.leg === leg) live.leg = null;
    this.turnSession.delete(leg.turnId);
  }

  /**
   * Runs one leg of a turn (the first, or one resumed after a decision) and settles its outcome: a
   * finished turn frees the chat and starts what was queued; a suspended one stays the running turn,
   * awaiting a decision. The approval is announced from the outcome (after the agent's exit hooks), so a
   * decision can never resume the turn while its suspending leg is still unwinding.
   */
  async drive(live: LiveSession, leg: Leg, run: (signal: AbortSignal) => Promise<AgentRunOutcome>): Promise<void> {
    const { turnId } = leg;
    let suspended = false;
    try {
      const outcome = await run(leg.abort.signal);
      if (outcome.status === "suspended") {
        suspended = await this.suspend(live, outcome.transaction);
      } else if (!live.completed.has(turnId)) {
        // A control exit (cancel) ends the turn without a turn_completed agent event: the outcome has it.
        this.publisher.publish(live, turnId, completedEvent(outcome.result));
      }
    } catch (error) {
      if (leg.abort.signal.aborted && isAbortError(error) && this.stopping) this.publisher.publish(live, turnId, { type: "turn_failed", message: RESTART_MESSAGE });
      else if (leg.abort.signal.aborted && isAbortError(error)) await this.interrupted(live, leg);
      else this.publisher.publish(live, turnId, { type: "turn_failed", message: error instanceof Error ? error.message : String(error) });
    } finally {
      this.closeLeg(live, leg);
      live.completed.delete(turnId);
      if (!suspended && live.row.runningTurn === turnId && !live.deleted) {
        this.endRow(live, turnId, this.now());
        this.startQueued(live);
      }
    }
  }

  /**
   * A leg that path B aborted: the agent's run rejected without saving its memory (no hook, no drain
   * saw it), so the chat keeps the exchange itself: the user's message and what streamed, XML-marked as
   * interrupted (as a path-A cancel keeps it), then ends the turn "interrupted".
   */
  private async interrupted(live: LiveSession, leg: Leg): Promise<void> {
    if (live.deleted) return;
    const sessionId = live.row.sessionId;
    const messages = await this.memory.load(sessionId);
    // A leg resumed after an approval has no input of its own: the turn's message is in the transcript (a rare path).
    const input = leg.input ?? (await this.store.events(sessionId, 0)).find((e) => e.turnId === leg.turnId && e.type === "user_message");
    const text = typeof input === "string" ? input : input?.type === "user_message" ? input.text : null;
    if (text !== null) messages.push({ role: "user", content: text });
    if (leg.streamed || leg.reasoning || leg.tools.length) messages.push(interruptedMessage({ content: leg.streamed, reasoning: leg.reasoning, toolNames: leg.tools }));
    await this.memory.save(sessionId, messages);
    settleCallUsage(leg);
    const { inputTokens, outputTokens } = leg;
    this.publisher.publish(live, leg.turnId, {
      type: "turn_completed",
      stopReason: "interrupted",
      content: leg.streamed,
      tokens: inputTokens + outputTokens,
      inputTokens,
      outputTokens,
      ...(leg.estimated ? { estimated: true as const } : {}),
      error: null,
    });
  }

  /** Stores the approval with the turn's snapshot and announces it, in one commit. */
  private async suspend(live: LiveSession, transaction: ApprovalTransaction): Promise<boolean> {
    if (live.deleted) return false;
    const snapshot = (await live.agent.snapshots.load(transaction.turnId)) ?? null;
    const row: ChatApprovalRow = { transaction, snapshot };
    live.awaiting = row;
    const { call } = transaction;
    await this.publisher.atomically(() => {
      this.store.saveApproval(row);
      detach(changeRow(live, { awaitingApproval: transaction.id }, () => this.store.suspendTurn(live.row.sessionId, transaction.turnId, transaction.id)));
      this.publisher.publish(live, transaction.turnId, { type: "approval_requested", transactionId: transaction.id, callId: call.id, name: call.name, arguments: call.arguments });
    });
    // A message queued while the model streamed runs after the decision, not now.
    return true;
  }

  /** Ends a turn waiting for approval: its approval is denied ("stopped") and the turn ends cancelled. */
  stopSuspended(live: LiveSession, awaiting: ChatApprovalRow): Awaitable<void> {
    const { transaction, snapshot } = awaiting;
    live.awaiting = null;
    const at = this.now();
    const usage = snapshot?.turn.usage;
    return this.publisher.atomically(() => {
      this.store.saveApproval({ transaction: { ...transaction, status: "denied", reason: "stopped", decidedAt: at }, snapshot: null });
      this.endRow(live, transaction.turnId, at);
      this.publisher.publish(live, transaction.turnId, decidedEvent(transaction, false, "stopped"), at);
      this.publisher.publish(live, transaction.turnId, {
        type: "turn_completed",
        stopReason: "cancelled",
        content: "",
        tokens: usage ? usage.inputTokens + usage.outputTokens : 0,
        inputTokens: usage?.inputTokens ?? 0,
        outputTokens: usage?.outputTokens ?? 0,
        ...(usage?.estimated ? { estimated: true as const } : {}),
        error: null,
      });
    });
  }

  /** Frees the chat of `turnId` (if that turn still runs in the store), updated at `at`. */
  private endRow(live: LiveSession, turnId: string, at: number): void {
    const patch = { runningTurn: null, awaitingApproval: null, turnOwner: null, updatedAt: Math.max(live.row.updatedAt, at) };
    detach(changeRow(live, patch, () => this.store.endTurn(live.row.sessionId, turnId, at)));
  }
}

/** The notice a resumed turn shows: where it goes on from, and what of it is done. */
function resumedText(checkpoint: TurnSnapshot, resumes: number): string {
  const again = resumes > 1 ? ` (resume ${resumes})` : "";
  return `resumed after a restart${again}, from the end of step ${checkpoint.turn.iteration}: its tool results are kept, no tool before it runs again; what streamed after it is streamed again`;
}
