import { randomUUID } from "node:crypto";
import type { AgentNodeDelta } from "@/server/agent/graph-node/agent-node";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import type { AgentRuns, LiveDelta } from "@/server/services/agents/agent-runs";
import { AGENT_LIVE_CHANNEL, appendDelta, packBatches } from "./agent-live-batch";

/** How long deltas gather before they go out as one notification (a call's `end` goes out at once). */
const DEFAULT_FLUSH_MS = 50;

/** One statement for all payloads of a flush (unnest yields them in order; one transaction's notifications arrive in order). */
const NOTIFY_SQL = "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p";

/**
 * A worker's relay of its agent nodes' live text to the web processes: every delta its AgentRuns
 * publishes is buffered (a call's consecutive pieces merged into one) and NOTIFYed on `modex_agent_live`
 * every `flushMs` while there is any, as few payloads as fit under PostgreSQL's 8000-byte limit, in one
 * statement; a call's `end` is sent without waiting. At most one flush is in flight (order is kept).
 *
 * Catching up (`resync`): a web process whose LISTEN connection was down missed what was sent
 * meanwhile; once it listens again it asks the workers (a `live_resync` control message) and each
 * sends the whole text so far of every call still streaming (`whole` deltas, which replace what a
 * listener kept). A flush that fails is logged and followed by the same resend. Still best-effort:
 * a call that ended while a listener was away is not resent (its text is in the event log as its
 * `message` activity), nor is reasoning (never kept), and a request lost while the worker's own
 * control connection is down is not answered. Nothing is sent while no agent node streams: a graph
 * without agent nodes costs nothing here.
 */
export class AgentLiveSender {
  /** This relay's id in its payloads. */
  readonly id = randomUUID();
  /** Notifications sent, flushes failed: for tests and the cost note in docs/cluster.md. */
  readonly stats = { notifications: 0, failed: 0 };
  private buffer: LiveDelta[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private failing = false;
  private closed = false;

  constructor(private readonly deps: { db: PgQueryable; runs: AgentRuns; flushMs?: number }) {
    deps.runs.relayTo((delta) => this.add(delta));
  }

  /** Stops relaying; sends what is buffered first. */
  async close(): Promise<void> {
    this.deps.runs.relayTo(null);
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.sending;
    await this.flush();
  }

  /**
   * Queues the whole text so far of each call streaming here, in place of its pieces not sent yet
   * (they are part of it): a listener that missed some of it has all of it after this.
   */
  resync(): void {
    if (this.closed) return;
    const soFar = this.deps.runs.soFar();
    if (soFar.length === 0) return;
    const sameCall = (a: AgentNodeDelta, b: AgentNodeDelta) =>
      a.instanceId === b.instanceId && a.invocationId === b.invocationId && a.turnId === b.turnId && a.attempt === b.attempt && a.iteration === b.iteration;
    this.buffer = this.buffer.filter((d) => d.channel !== "text" || !soFar.some((call) => sameCall(call, d)));
    for (const call of soFar) this.buffer.push({ ...call, whole: true });
    this.schedule(this.deps.flushMs ?? DEFAULT_FLUSH_MS);
  }

  private add(delta: AgentNodeDelta): void {
    if (this.closed) return;
    appendDelta(this.buffer, delta);
    // A call's end goes out at once: a viewer drops the call's streamed text then (its message is logged).
    this.schedule(delta.channel === "end" ? 0 : (this.deps.flushMs ?? DEFAULT_FLUSH_MS));
  }

  private schedule(delayMs: number): void {
    if (this.sending) return; // the flush in flight schedules the next when it is done
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.sending = this.flush().finally(() => {
        this.sending = null;
        if (this.buffer.length > 0 && !this.closed) this.schedule(this.buffer.some((d) => d.channel === "end") ? 0 : (this.deps.flushMs ?? DEFAULT_FLUSH_MS));
      });
    }, delayMs);
    this.timer.unref?.();
  }

  private async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const payloads = packBatches({ from: this.id, seq: this.seq, deltas: this.buffer });
    this.buffer = [];
    this.seq += payloads.length;
    try {
      await this.deps.db.query({ text: NOTIFY_SQL, values: [AGENT_LIVE_CHANNEL, payloads] });
      this.stats.notifications += payloads.length;
      this.failing = false;
    } catch (error) {
      this.stats.failed++;
      // Once per streak of failures: a database out of reach would log it 20 times a second.
      if (!this.failing) console.error(`[modex] relaying agent live text failed (dropped; viewers elsewhere miss it): ${error instanceof Error ? error.message : String(error)}`);
      this.failing = true;
      // What was dropped is part of each running call's text: the next flush sends it whole.
      this.resync();
    }
  }
}
