import { commitWith } from "@/server/db/deferred-transaction";
import type { Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import type { DeliveryRecord, DeliverySettlement, NotificationEvent, NotificationRecord, SettledRun, StatusChange } from "./notification-records";
import type { NotificationStore } from "./notification-store";

/** The statuses a notification may be told of ("paused": waiting, if for a person). */
export const SETTLED = "'completed', 'failed', 'stopped', 'paused'";
/** The catch-up's watermark, in the Meta table: epoch ms as text. */
export const WATERMARK_KEY = "notifications.watermark";

const N_COLUMNS = "id, url, events, graph, enabled, secret, created_at";
const D_COLUMNS =
  "id, notification_id, instance_id, version, event, body, state, attempts, next_attempt_at, claimed_until, last_status, last_error, attempt_log, created_at, updated_at";

const SQL = {
  list: `SELECT ${N_COLUMNS} FROM notifications ORDER BY created_at, id`,
  get: `SELECT ${N_COLUMNS} FROM notifications WHERE id = ?`,
  create: `INSERT INTO notifications (${N_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  setEnabled: `UPDATE notifications SET enabled = ? WHERE id = ?`,
  remove: `DELETE FROM notifications WHERE id = ?`,
  removeDeliveries: `DELETE FROM notification_deliveries WHERE notification_id = ?`,
  enqueue: `INSERT INTO notification_deliveries (${D_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (notification_id, instance_id, version, event) DO NOTHING`,
  // One server owns a data directory (its lock), so a claim in one statement is atomic enough here.
  claim: `UPDATE notification_deliveries SET claimed_until = ? WHERE id IN (
      SELECT id FROM notification_deliveries WHERE state = 'pending' AND next_attempt_at <= ?
        AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY next_attempt_at LIMIT ?)
    RETURNING ${D_COLUMNS}`,
  settle: `UPDATE notification_deliveries SET state = ?, attempts = ?, next_attempt_at = ?, last_status = ?, last_error = ?,
      attempt_log = ?, updated_at = ?, claimed_until = NULL WHERE id = ? AND claimed_until = ?`,
  deliveries: `SELECT ${D_COLUMNS} FROM notification_deliveries WHERE notification_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
  // From the (is_latest, updated_at, instance_id, status) index alone: a range of it, not the table.
  settledRuns: `SELECT instance_id, version, status, updated_at FROM graph_instances
    WHERE is_latest = 1 AND (updated_at, instance_id) > (?, ?) AND updated_at <= ? AND status IN (${SETTLED})
    ORDER BY updated_at, instance_id LIMIT ?`,
  // The instance's own events, newest first (its (instance_id, id) index): the status change is near the end.
  statusChange: `SELECT payload, created_at FROM engine_events WHERE instance_id = ? AND version = ? AND type = 'instance_status'
    ORDER BY id DESC LIMIT 1`,
  watermark: `SELECT value FROM "Meta" WHERE key = '${WATERMARK_KEY}'`,
  raiseWatermark: `INSERT INTO "Meta" (key, value) VALUES ('${WATERMARK_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
    WHERE CAST(excluded.value AS INTEGER) > CAST("Meta".value AS INTEGER)`,
} as const;

export interface NotificationRow {
  id: string;
  url: string;
  events: string;
  graph: string | null;
  enabled: number | boolean;
  secret: string;
  created_at: number | Date;
}

export interface DeliveryRow {
  id: string;
  notification_id: string;
  instance_id: string;
  version: number;
  event: string;
  body: string;
  state: string;
  attempts: number;
  next_attempt_at: number | Date;
  claimed_until: number | Date | null;
  last_status: number | null;
  last_error: string | null;
  attempt_log: string;
  created_at: number | Date;
  updated_at: number | Date;
}

export interface SettledRow {
  instance_id: string;
  version: number;
  status: string;
  updated_at: number | Date;
}

export const toSettledRun = (r: SettledRow): SettledRun => ({ instanceId: r.instance_id, version: Number(r.version), status: r.status, updatedAt: ms(r.updated_at) });

/** The logged event (JSON text in SQLite, parsed already by PostgreSQL's json column). */
export function toStatusChange(r: { payload: unknown; created_at: number | Date }): StatusChange {
  const e = (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload) as { to: string; error?: string };
  return { to: e.to, at: ms(r.created_at), ...(e.error === undefined ? {} : { error: e.error }) };
}

/** Epoch ms from SQLite's integer or PostgreSQL's Date. */
export const ms = (v: number | Date): number => (v instanceof Date ? v.getTime() : Number(v));

export const toNotification = (r: NotificationRow): NotificationRecord => ({
  id: r.id,
  url: r.url,
  events: r.events === "" ? [] : (r.events.split(",") as NotificationEvent[]),
  graph: r.graph,
  enabled: Boolean(r.enabled),
  secret: r.secret,
  createdAt: ms(r.created_at),
});

export const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  notificationId: r.notification_id,
  instanceId: r.instance_id,
  version: Number(r.version),
  event: r.event as DeliveryRecord["event"],
  body: r.body,
  state: r.state as DeliveryRecord["state"],
  attempts: Number(r.attempts),
  nextAttemptAt: ms(r.next_attempt_at),
  claimedUntil: r.claimed_until === null ? null : ms(r.claimed_until),
  lastStatus: r.last_status === null ? null : Number(r.last_status),
  lastError: r.last_error,
  attemptLog: JSON.parse(r.attempt_log) as DeliveryRecord["attemptLog"],
  createdAt: ms(r.created_at),
  updatedAt: ms(r.updated_at),
});

/** SQLite's values of a delivery, in D_COLUMNS order (PostgreSQL maps the times to timestamps). */
export const deliveryValues = (d: DeliveryRecord, time: (ms: number) => unknown = (t) => t) => [
  d.id, d.notificationId, d.instanceId, d.version, d.event, d.body, d.state, d.attempts, time(d.nextAttemptAt),
  d.claimedUntil === null ? null : time(d.claimedUntil), d.lastStatus, d.lastError, JSON.stringify(d.attemptLog), time(d.createdAt), time(d.updatedAt),
];

export class SqliteNotificationStore implements NotificationStore {
  constructor(private readonly db: Database) {}

  list(): NotificationRecord[] {
    return (statement(this.db, SQL.list).all() as NotificationRow[]).map(toNotification);
  }
  get(id: string): NotificationRecord | null {
    const row = statement(this.db, SQL.get).get(id) as NotificationRow | undefined;
    return row ? toNotification(row) : null;
  }
  create(r: NotificationRecord): void {
    const values = [r.id, r.url, r.events.join(","), r.graph, r.enabled ? 1 : 0, r.secret, r.createdAt];
    commitWith(this.db, () => statement(this.db, SQL.create).run(...values), { oneWrite: true });
  }
  setEnabled(id: string, enabled: boolean): boolean {
    return commitWith(this.db, () => statement(this.db, SQL.setEnabled).run(enabled ? 1 : 0, id).changes > 0, { oneWrite: true });
  }
  remove(id: string): boolean {
    return commitWith(this.db, () => {
      statement(this.db, SQL.removeDeliveries).run(id);
      return statement(this.db, SQL.remove).run(id).changes > 0;
    });
  }
  enqueue(rows: DeliveryRecord[]): number {
    if (rows.length === 0) return 0;
    return commitWith(this.db, () => rows.reduce((n, r) => n + statement(this.db, SQL.enqueue).run(...deliveryValues(r)).changes, 0));
  }
  claim({ now, until, limit }: { now: number; until: number; limit: number }): DeliveryRecord[] {
    return commitWith(this.db, () => statement(this.db, SQL.claim).all(until, now, now, limit) as DeliveryRow[], { oneWrite: true })
      .map(toDelivery)
      .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
  }
  settle(id: string, claimedUntil: number, s: DeliverySettlement): boolean {
    const values = [s.state, s.attempts, s.nextAttemptAt, s.lastStatus, s.lastError, JSON.stringify(s.attemptLog), s.updatedAt, id, claimedUntil];
    return commitWith(this.db, () => statement(this.db, SQL.settle).run(...values).changes > 0, { oneWrite: true });
  }
  deliveries(notificationId: string, limit: number): DeliveryRecord[] {
    return (statement(this.db, SQL.deliveries).all(notificationId, limit) as DeliveryRow[]).map(toDelivery);
  }
  settledRuns({ after, afterId, until, limit }: { after: number; afterId: string; until: number; limit: number }): SettledRun[] {
    return (statement(this.db, SQL.settledRuns).all(after, afterId, until, limit) as SettledRow[]).map(toSettledRun);
  }
  statusChange(instanceId: string, version: number): StatusChange | null {
    const row = statement(this.db, SQL.statusChange).get(instanceId, version) as { payload: string; created_at: number } | undefined;
    return row ? toStatusChange(row) : null;
  }
  watermark(): number {
    const row = statement(this.db, SQL.watermark).get() as { value: string } | undefined;
    return row ? Number(row.value) : 0;
  }
  raiseWatermark(at: number): void {
    commitWith(this.db, () => statement(this.db, SQL.raiseWatermark).run(String(at)), { oneWrite: true });
  }
}
