import type { PgQueryable } from "@/server/db/pg/pg-database";
import type { ChatService } from "@/server/services/chat-service";

/**
 * Claims, in one statement, every chat turn left running (not waiting for an approval) by a process
 * whose heartbeat expired or is gone: the owner becomes this process. Two reapers at once claim each
 * turn once (the second UPDATE re-reads a claimed row and finds a live owner). Only a process whose own
 * heartbeat is current claims (one cut off from the database for longer than the lease is dead for the
 * others). A turn with no owner (written before owners were kept) counts as orphaned.
 */
const CLAIM_SQL = `UPDATE chat_sessions s SET running_owner = $1
  WHERE s.running_turn IS NOT NULL AND s.awaiting_approval IS NULL
    AND NOT EXISTS (SELECT 1 FROM cluster_processes p WHERE p.process_id = s.running_owner AND p.expires_at > now())
    AND EXISTS (SELECT 1 FROM cluster_processes me WHERE me.process_id = $1 AND me.expires_at > now())
  RETURNING s.session_id, s.running_turn`;

/**
 * Settles the chat turns of web processes that died, as a restart does on one process (one with an
 * iteration checkpoint resumes here, the claim having made this process its owner; any other ends with
 * `turn_failed` and the restart message, the chat free again): on one process every running turn at start is an
 * orphan, on a cluster only those whose owner's heartbeat expired (process-heartbeat.ts). What waited
 * behind such a turn runs next; so do messages left waiting in a chat free for `waitingIdleMs` (their
 * sender, which starts them when the turn they waited for ends, died first). Runs at start and every
 * `intervalMs`. A claimed turn this process dies before ending is claimed again by another.
 */
export class ChatTurnReaper {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly deps: { db: PgQueryable; chat: ChatService; owner: string; waitingIdleMs: number }) {}

  start(intervalMs: number): this {
    this.timer = setInterval(() => void this.pass(), intervalMs);
    this.timer.unref?.();
    void this.pass();
    return this;
  }

  /** One pass: the turns ended. Never rejects (a failure is logged; the next pass tries again). */
  pass(): Promise<string[]> {
    if (this.running) return this.running.then(() => this.pass());
    const run = this.reap().catch((error: unknown) => {
      console.error(`[modex] ending orphaned chat turns failed: ${error instanceof Error ? error.message : String(error)}`);
      return [] as string[];
    });
    this.running = run.finally(() => (this.running = null));
    return run;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async reap(): Promise<string[]> {
    const { rows } = await this.deps.db.query<{ session_id: string; running_turn: string }>({ text: CLAIM_SQL, values: [this.deps.owner] });
    const ended: string[] = [];
    for (const r of rows) if (await this.deps.chat.endOrphanedTurn(r.session_id, r.running_turn)) ended.push(r.running_turn);
    await this.deps.chat.deliverWaiting({ idleMs: this.deps.waitingIdleMs });
    return ended;
  }
}
