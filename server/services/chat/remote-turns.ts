import type { ControlChannel } from "@/server/agent/control/in-memory-control-channel";
import type { Awaitable } from "@/server/graph/awaitable";
import { ServiceError } from "../errors";
import { applyBusy, newInput } from "./chat-busy-input";
import type { BusyInputMode, ChatEvent } from "./chat-event";
import { describe, type ChatPublisher } from "./chat-publisher";
import type { ChatSessions } from "./chat-sessions";
import type { ChatStore, NewChatEvent } from "./chat-store";
import type { ChatTurns } from "./chat-turns";
import type { ChatTurnRelay, RelayedTurnRequest, SendOutcome } from "./chat-types";
import type { LiveSession } from "./live-session";
import { settleOrphan, type OrphanOutcome } from "./orphaned-turns";

/** How long a process waits for another to free a chat's row after its turn ended (endedElsewhere, cancelElsewhere): 40 × 50 ms. */
const FREED_ROW_ATTEMPTS = 40;
const FREED_ROW_RETRY_MS = 50;

/**
 * On a PostgreSQL cluster: the turns of chats that another web process runs. Stop, STEER and INTERRUPT
 * reach the owner through the relay (ChatTurnRelay); what the owner was relayed is applied here as if
 * sent here; a turn that ended elsewhere lets what waits behind it start; a dead owner's turn is ended
 * as a restart ends it. Without a relay (one process) none of this is used.
 */
export class RemoteTurns {
  private relay: ChatTurnRelay | null = null;

  constructor(
    private readonly deps: {
      sessions: ChatSessions;
      store: ChatStore;
      publisher: ChatPublisher;
      turns: ChatTurns;
      channel: ControlChannel;
      /** This process's executor id (null: not a cluster). */
      owner: string | null;
      now: () => number;
    },
  ) {}

  use(relay: ChatTurnRelay): void {
    this.relay = relay;
  }

  /**
   * The process that runs `live`'s turn when it is another (live or not) one, named on the row; null
   * when this process runs it, or it waits for an approval (the store has all it needs), or there is no
   * relay.
   */
  ownerOf(live: LiveSession): string | null {
    const { runningTurn, turnOwner } = live.row;
    if (!this.relay || !runningTurn || live.awaiting || !turnOwner || turnOwner === this.deps.owner) return null;
    return live.leg?.turnId === runningTurn ? null : turnOwner;
  }

  /**
   * Cancels `turnId`, run by the live process `owner`, through the relay; answered once the owner
   * accepted it (it stops the turn as a local cancel does). An owner that is gone had its turns ended by
   * the relay's reaper, or by another process's reaper that claimed the turn first (it ends it right
   * after its claim: its end is waited for, as endedElsewhere waits for a freed row): cancelled when the
   * turn no longer runs. PEER_UNAVAILABLE when the owner did not answer in time (nothing is claimed
   * then: the turn may still run), or when nobody ended the gone owner's turn.
   */
  async cancel(live: LiveSession, owner: string, turnId: string): Promise<{ cancelled: boolean }> {
    const { sessionId } = live.row;
    const answer = await this.relay!.ask(owner, { kind: "cancel", sessionId, turnId });
    if (answer !== "gone") return { cancelled: answer.applied };
    for (let attempt = 0; ; attempt++) {
      const row = await this.deps.store.session(sessionId);
      if (row?.runningTurn !== turnId) return { cancelled: true };
      // Still the gone owner's, or this process's (its own pass claimed it and could not end it): nobody ends it now.
      if (row.turnOwner === owner || row.turnOwner === this.deps.owner || attempt >= FREED_ROW_ATTEMPTS) {
        throw new ServiceError("PEER_UNAVAILABLE", `the process running this turn (${owner}) is gone and its turn is not ended yet: try again`);
      }
      await new Promise((r) => setTimeout(r, FREED_ROW_RETRY_MS));
    }
  }

  /**
   * A STEER or INTERRUPT message for the turn `owner` runs. Its busy_input event and its waiting row are
   * stored here in one commit (the chat shows it at once, and it outlives either process), then the
   * owner applies it through the relay as `busy` would (answered once it did). Should the turn have
   * ended meanwhile, or its owner be gone (the relay's reaper ended its turns), the message is taken
   * again from the chat as it now is, unless it started already (whoever freed the chat runs what
   * waits). PEER_UNAVAILABLE when the owner did not answer in time (a notice in the chat says the
   * message was not delivered, and its row waits no more).
   */
  async busy(live: LiveSession, owner: string, running: string, text: string, mode: BusyInputMode): Promise<SendOutcome> {
    const { store, publisher, sessions, turns } = this.deps;
    const { sessionId } = live.row;
    const input = newInput(sessionId, mode, text, this.deps.now());
    let appended!: Awaitable<ChatEvent>;
    await store.write(() => {
      appended = store.appendEvent({ type: "busy_input", mode, text, sessionId, turnId: running, at: input.at } as NewChatEvent);
      store.addInput(input);
    });
    const event = await appended;
    let answer: { applied: boolean } | "gone";
    try {
      answer = await this.relay!.ask(owner, { kind: "busy", sessionId, turnId: running, seq: event.seq, inputId: input.inputId });
    } catch (error) {
      // Not delivered, and the sender is told so: the message does not run later either.
      await publisher.atomically(() => {
        store.dropInput(input.inputId);
        publisher.publish(live, running, { type: "notice", command: "send", text: `not delivered: ${describe(error)}`, isError: true });
      });
      await store.committed();
      throw error;
    }
    if (answer !== "gone" && answer.applied) return { sessionId, turnId: running, handled: mode === "STEER" ? "steered" : "interrupted", mode };
    // The turn ended (or is suspended) meanwhile: the chat as stored decides, without a second busy_input.
    for (;;) {
      const now = await sessions.settled(sessionId);
      const waits = (await store.waitingInputs(sessionId)).some((i) => i.inputId === input.inputId);
      // The process that freed the chat started it already: it was queued behind the turn, and ran next.
      if (!waits) return { sessionId, turnId: running, handled: "queued", mode: "QUEUE" };
      const next = now.row.runningTurn;
      if (next) {
        const here = !this.ownerOf(now) && !(now.awaiting && mode === "STEER");
        const queued = applyBusy(turns, now, next, here ? input : { ...input, mode: "QUEUE" });
        await store.committed();
        return queued;
      }
      const turnId = await turns.startTurn(now, text, { input: input.inputId });
      if (turnId) return { sessionId, turnId, handled: "started" };
    }
  }

  /**
   * A stop, STEER or INTERRUPT another process relayed for a turn this one runs, applied as if it had
   * been sent here. `applied` false: the turn does not run here (it ended meanwhile, or is suspended on
   * an approval, which any process decides or stops from the store).
   */
  async apply(request: RelayedTurnRequest): Promise<{ applied: boolean }> {
    const live = this.deps.sessions.get(request.sessionId);
    const leg = live?.leg;
    if (!live || !leg || leg.turnId !== request.turnId || live.row.runningTurn !== request.turnId || live.awaiting) return { applied: false };
    if (request.kind === "cancel") {
      this.deps.channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: request.sessionId, turnId: request.turnId });
      return { applied: true };
    }
    // The message is the busy_input event the sending process stored (no size limit on a NOTIFY payload).
    const [event] = await this.deps.store.events(request.sessionId, request.seq - 1, 1);
    if (event?.seq !== request.seq || event.type !== "busy_input") throw new ServiceError("BAD_REQUEST", `no busy-input message ${request.seq} in chat ${request.sessionId}`);
    if (live.leg !== leg) return { applied: false };
    applyBusy(this.deps.turns, live, request.turnId, { inputId: request.inputId, sessionId: request.sessionId, mode: event.mode, text: event.text, at: event.at });
    return { applied: true };
  }

  /**
   * A turn another process ran has ended: what waits behind it may start here (the process that ran it
   * starts it too; the claim lets one win). That process frees the chat's row just after the turn's last
   * event, in a commit of its own: the row is read until it does (or names another turn).
   */
  endedElsewhere(event: ChatEvent, attempt = 0): void {
    const { sessions, store, turns } = this.deps;
    const live = sessions.get(event.sessionId);
    if (!live || live.leg !== null || live.awaiting || live.row.runningTurn !== event.turnId) return;
    if (live.queue.length === 0 && live.steer.length === 0) return;
    void Promise.resolve(store.session(event.sessionId)).then((row) => {
      if (!row || live.deleted || sessions.get(event.sessionId) !== live || live.row.runningTurn !== event.turnId) return;
      if (row.runningTurn === event.turnId) {
        // Not freed yet. A process that died meanwhile never frees it: the reaper ends the turn, and its
        // turn_failed comes back here.
        if (attempt < FREED_ROW_ATTEMPTS) setTimeout(() => this.endedElsewhere(event, attempt + 1), FREED_ROW_RETRY_MS);
        return;
      }
      live.row = { ...row, agent: live.row.agent };
      turns.startQueued(live);
    }, (error: unknown) => console.error(`[modex] a queued chat message did not start: ${describe(error)}`));
  }

  /**
   * Settles the running turn `turnId` of a chat whose owner process died (the caller, the cluster's
   * reaper, claimed it first, so no other process settles it too), as a restart does on one process:
   * resumable from its checkpoint (the caller resumes it here), or ended with `turn_failed` and the chat
   * free again. Nothing when the chat moved on meanwhile.
   */
  async endOrphaned(sessionId: string, turnId: string): Promise<OrphanOutcome> {
    const row = await this.deps.store.session(sessionId);
    if (!row || row.runningTurn !== turnId || row.awaitingApproval) return { ended: false };
    if (this.deps.sessions.get(sessionId)?.leg?.turnId === turnId) return { ended: false }; // it runs here after all
    // A chat loaded here is read again when used; what waited behind the turn runs next (the reaper's
    // delivery). One with a checkpoint is this process's to resume (the claim made it its owner).
    return settleOrphan(this.deps.store, row, this.deps.now);
  }
}
