import { toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { Awaitable } from "@/server/graph/awaitable";
import type { SessionRevocationStore } from "./session-revocations";

/** A logout made by another web process is seen within this long (one query per process per interval at most). */
export const REVOCATIONS_REFRESH_MS = 1_000;

const SQL = {
  // A second logout of one session keeps the first row (same session, same expiry).
  revoke: `INSERT INTO session_revocations (session_id, expires_at) VALUES ($1, $2::timestamptz) ON CONFLICT (session_id) DO NOTHING`,
  forgetExpired: `DELETE FROM session_revocations WHERE expires_at <= $1::timestamptz`,
  live: `SELECT session_id FROM session_revocations WHERE expires_at > $1::timestamptz`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_revocations_${name}`, text: SQL[name], values });

/**
 * Revoked sessions in PostgreSQL's `session_revocations`, shared by every web process on the database:
 * a logout on one ends the session on all of them. Each process keeps the list in memory and re-reads
 * it when it is older than REVOCATIONS_REFRESH_MS, so a check costs no query most of the time and a
 * logout elsewhere takes effect here within a second; a logout made here takes effect here at once.
 * The list holds only sessions logged out before their expiry (at most 30 days of logouts).
 */
export class PgSessionRevocations implements SessionRevocationStore {
  private revoked = new Set<string>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;
  /** Logouts made here while a read ran: that read may have missed them. */
  private readonly addedDuringRead = new Set<string>();

  constructor(
    private readonly db: PgQueryable,
    private readonly now: () => number = Date.now,
  ) {}

  isRevoked(sessionId: string): Awaitable<boolean> {
    if (this.now() - this.readAt < REVOCATIONS_REFRESH_MS) return this.revoked.has(sessionId);
    return this.refresh().then(() => this.revoked.has(sessionId));
  }

  async revoke(sessionId: string, expiresMs: number, now = this.now()): Promise<void> {
    await this.db.query(q("revoke", [sessionId, toTimestamp(expiresMs)]));
    this.revoked.add(sessionId);
    if (this.reading) this.addedDuringRead.add(sessionId);
    await this.db.query(q("forgetExpired", [toTimestamp(now)]));
  }

  /** One read at a time: checks arriving while it runs wait for it. */
  private refresh(): Promise<void> {
    this.reading ??= (async () => {
      try {
        const startedAt = this.now();
        const { rows } = await this.db.query<{ session_id: string }>(q("live", [toTimestamp(startedAt)]));
        this.revoked = new Set([...rows.map((r) => r.session_id), ...this.addedDuringRead]);
        this.readAt = startedAt;
      } finally {
        this.addedDuringRead.clear();
        this.reading = null;
      }
    })();
    return this.reading;
  }
}
