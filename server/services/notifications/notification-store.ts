import type { Awaitable } from "@/server/graph/awaitable";
import type { DeliveryRecord, DeliverySettlement, NotificationRecord, SettledRun, StatusChange } from "./notification-records";

/**
 * Notifications and their outbox. Every write commits before it answers (in memory and SQLite
 * synchronously, PostgreSQL with promises).
 */
export interface NotificationStore {
  list(): Awaitable<NotificationRecord[]>;
  get(id: string): Awaitable<NotificationRecord | null>;
  create(record: NotificationRecord): Awaitable<void>;
  setEnabled(id: string, enabled: boolean): Awaitable<boolean>;
  /** The notification and its deliveries. */
  remove(id: string): Awaitable<boolean>;
  /**
   * Inserts the deliveries that are not there yet (unique per notification, instance, version and event),
   * so a replayed event or a second process inserting the same rows adds nothing. Returns how many it added.
   */
  enqueue(rows: DeliveryRecord[]): Awaitable<number>;
  /**
   * Claims up to `limit` pending rows due at `now` and not claimed by anyone else (or whose claim lapsed),
   * holding them until `until`. Of claims at once, from any processes, each row goes to one.
   */
  claim(args: { now: number; until: number; limit: number }): Awaitable<DeliveryRecord[]>;
  /** Records an attempt and releases the claim, if the row is still held under `claimedUntil`; false otherwise. */
  settle(id: string, claimedUntil: number, settlement: DeliverySettlement): Awaitable<boolean>;
  /** A notification's deliveries, newest first. */
  deliveries(notificationId: string, limit: number): Awaitable<DeliveryRecord[]>;
  /**
   * The catch-up's scan: latest run versions now completed, failed, stopped or paused whose row changed
   * after the key (updatedAt, instanceId) and at or before `until`, in that order, at most `limit`.
   */
  settledRuns(args: { after: number; afterId: string; until: number; limit: number }): Awaitable<SettledRun[]>;
  /** A run version's last logged status change, or null if none is logged. */
  statusChange(instanceId: string, version: number): Awaitable<StatusChange | null>;
  /** The newest status-change time whose outbox rows are known written (0: none yet). */
  watermark(): Awaitable<number>;
  /** Raises the watermark to `at` (never lowers it: processes may report out of order). */
  raiseWatermark(at: number): Awaitable<void>;
}

/** For unit tests and the in-memory app (one process). */
export class InMemoryNotificationStore implements NotificationStore {
  private readonly rows = new Map<string, NotificationRecord>();
  private readonly outbox = new Map<string, DeliveryRecord>();
  private covered = 0;

  list(): NotificationRecord[] {
    return [...this.rows.values()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)).map(copy);
  }
  get(id: string): NotificationRecord | null {
    const r = this.rows.get(id);
    return r ? copy(r) : null;
  }
  create(record: NotificationRecord): void {
    this.rows.set(record.id, copy(record));
  }
  setEnabled(id: string, enabled: boolean): boolean {
    const r = this.rows.get(id);
    if (r) r.enabled = enabled;
    return r !== undefined;
  }
  remove(id: string): boolean {
    for (const [key, d] of this.outbox) if (d.notificationId === id) this.outbox.delete(key);
    return this.rows.delete(id);
  }
  enqueue(rows: DeliveryRecord[]): number {
    let added = 0;
    for (const row of rows) {
      const taken = [...this.outbox.values()].some((d) => d.notificationId === row.notificationId && d.instanceId === row.instanceId && d.version === row.version && d.event === row.event);
      if (taken) continue;
      this.outbox.set(row.id, { ...row, attemptLog: [...row.attemptLog] });
      added++;
    }
    return added;
  }
  claim({ now, until, limit }: { now: number; until: number; limit: number }): DeliveryRecord[] {
    const due = [...this.outbox.values()]
      .filter((d) => d.state === "pending" && d.nextAttemptAt <= now && (d.claimedUntil === null || d.claimedUntil < now))
      .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt)
      .slice(0, limit);
    for (const d of due) d.claimedUntil = until;
    return due.map((d) => ({ ...d, attemptLog: [...d.attemptLog] }));
  }
  settle(id: string, claimedUntil: number, s: DeliverySettlement): boolean {
    const d = this.outbox.get(id);
    if (!d || d.claimedUntil !== claimedUntil) return false;
    Object.assign(d, s, { claimedUntil: null, attemptLog: [...s.attemptLog] });
    return true;
  }
  deliveries(notificationId: string, limit: number): DeliveryRecord[] {
    return [...this.outbox.values()]
      .filter((d) => d.notificationId === notificationId)
      .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id))
      .slice(0, limit)
      .map((d) => ({ ...d, attemptLog: [...d.attemptLog] }));
  }
  // In memory nothing outlives the process, so there is nothing to catch up on.
  settledRuns(): SettledRun[] {
    return [];
  }
  statusChange(): StatusChange | null {
    return null;
  }
  watermark(): number {
    return this.covered;
  }
  raiseWatermark(at: number): void {
    this.covered = Math.max(this.covered, at);
  }
}

const copy = (r: NotificationRecord): NotificationRecord => ({ ...r, events: [...r.events] });
