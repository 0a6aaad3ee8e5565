import { inTransaction, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { DeliveryRecord, DeliverySettlement, NotificationRecord, SettledRun, StatusChange } from "./notification-records";
import type { NotificationStore } from "./notification-store";
import {
  deliveryValues, SETTLED, toDelivery, toNotification, toSettledRun, toStatusChange, WATERMARK_KEY, type DeliveryRow, type NotificationRow, type SettledRow,
} from "./sqlite-notification-store";

const N_COLUMNS = "id, url, events, graph, enabled, secret, created_at";
const D_COLUMNS =
  "id, notification_id, instance_id, version, event, body, state, attempts, next_attempt_at, claimed_until, last_status, last_error, attempt_log, created_at, updated_at";

const SQL = {
  list: `SELECT ${N_COLUMNS} FROM notifications ORDER BY created_at, id COLLATE "C"`,
  get: `SELECT ${N_COLUMNS} FROM notifications WHERE id = $1`,
  create: `INSERT INTO notifications (${N_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz)`,
  setEnabled: `UPDATE notifications SET enabled = $1 WHERE id = $2`,
  remove: `DELETE FROM notifications WHERE id = $1`,
  removeDeliveries: `DELETE FROM notification_deliveries WHERE notification_id = $1`,
  enqueue: `INSERT INTO notification_deliveries (${D_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $10::timestamptz,
      $11, $12, $13, $14::timestamptz, $15::timestamptz)
    ON CONFLICT (notification_id, instance_id, version, event) DO NOTHING`,
  // SKIP LOCKED: a row another process is claiming at this moment is passed over, not waited for; once
  // its claim commits, claimed_until keeps it from everyone else until it lapses.
  claim: `UPDATE notification_deliveries SET claimed_until = $1::timestamptz WHERE id IN (
      SELECT id FROM notification_deliveries WHERE state = 'pending' AND next_attempt_at <= $2::timestamptz
        AND (claimed_until IS NULL OR claimed_until < $2::timestamptz) ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
    RETURNING ${D_COLUMNS}`,
  settle: `UPDATE notification_deliveries SET state = $1, attempts = $2, next_attempt_at = $3::timestamptz, last_status = $4, last_error = $5,
      attempt_log = $6, updated_at = $7::timestamptz, claimed_until = NULL WHERE id = $8 AND claimed_until = $9::timestamptz`,
  deliveries: `SELECT ${D_COLUMNS} FROM notification_deliveries WHERE notification_id = $1 ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $2`,
  settledRuns: `SELECT instance_id, version, status, updated_at FROM graph_instances
    WHERE is_latest AND (updated_at, instance_id) > ($1::timestamptz, $2) AND updated_at <= $3::timestamptz AND status IN (${SETTLED})
    ORDER BY updated_at, instance_id LIMIT $4`,
  statusChange: `SELECT payload, created_at FROM engine_events WHERE instance_id = $1 AND version = $2 AND type = 'instance_status'
    ORDER BY id DESC LIMIT 1`,
  watermark: `SELECT value FROM "Meta" WHERE key = '${WATERMARK_KEY}'`,
  raiseWatermark: `INSERT INTO "Meta" (key, value) VALUES ('${WATERMARK_KEY}', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value
    WHERE CAST(excluded.value AS BIGINT) > CAST("Meta".value AS BIGINT)`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_notification_${name}`, text: SQL[name], values });
const changed = (r: { rowCount: number | null }) => (r.rowCount ?? 0) > 0;

/** Notifications and their outbox in PostgreSQL, shared by every web process. */
export class PgNotificationStore implements NotificationStore {
  constructor(private readonly db: PgQueryable) {}

  async list(): Promise<NotificationRecord[]> {
    return (await this.db.query<NotificationRow>(q("list", []))).rows.map(toNotification);
  }
  async get(id: string): Promise<NotificationRecord | null> {
    const row = (await this.db.query<NotificationRow>(q("get", [id]))).rows[0];
    return row ? toNotification(row) : null;
  }
  async create(r: NotificationRecord): Promise<void> {
    await this.db.query(q("create", [r.id, r.url, r.events.join(","), r.graph, r.enabled, r.secret, toTimestamp(r.createdAt)]));
  }
  async setEnabled(id: string, enabled: boolean): Promise<boolean> {
    return changed(await this.db.query(q("setEnabled", [enabled, id])));
  }
  async remove(id: string): Promise<boolean> {
    return inTransaction(this.db, async (tx) => {
      await tx.query(q("removeDeliveries", [id]));
      return changed(await tx.query(q("remove", [id])));
    });
  }
  async enqueue(rows: DeliveryRecord[]): Promise<number> {
    let added = 0;
    for (const r of rows) if (changed(await this.db.query(q("enqueue", deliveryValues(r, toTimestamp))))) added++;
    return added;
  }
  async claim({ now, until, limit }: { now: number; until: number; limit: number }): Promise<DeliveryRecord[]> {
    const rows = (await this.db.query<DeliveryRow>(q("claim", [toTimestamp(until), toTimestamp(now), limit]))).rows;
    return rows.map(toDelivery).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
  }
  async settle(id: string, claimedUntil: number, s: DeliverySettlement): Promise<boolean> {
    const values = [s.state, s.attempts, toTimestamp(s.nextAttemptAt), s.lastStatus, s.lastError, JSON.stringify(s.attemptLog), toTimestamp(s.updatedAt), id, toTimestamp(claimedUntil)];
    return changed(await this.db.query(q("settle", values)));
  }
  async deliveries(notificationId: string, limit: number): Promise<DeliveryRecord[]> {
    return (await this.db.query<DeliveryRow>(q("deliveries", [notificationId, limit]))).rows.map(toDelivery);
  }
  async settledRuns({ after, afterId, until, limit }: { after: number; afterId: string; until: number; limit: number }): Promise<SettledRun[]> {
    return (await this.db.query<SettledRow>(q("settledRuns", [toTimestamp(after), afterId, toTimestamp(until), limit]))).rows.map(toSettledRun);
  }
  async statusChange(instanceId: string, version: number): Promise<StatusChange | null> {
    const row = (await this.db.query<{ payload: unknown; created_at: Date }>(q("statusChange", [instanceId, version]))).rows[0];
    return row ? toStatusChange(row) : null;
  }
  async watermark(): Promise<number> {
    const row = (await this.db.query<{ value: string }>(q("watermark", []))).rows[0];
    return row ? Number(row.value) : 0;
  }
  async raiseWatermark(at: number): Promise<void> {
    await this.db.query(q("raiseWatermark", [String(at)]));
  }
}
