import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { NotificationEvent, NotificationRecord, SettledRun } from "./notification-records";
import type { NotificationStore } from "./notification-store";
import { outboxRowsFor } from "./notification-watcher";

/** Runs that changed longer ago than this are not looked at (README: Notifications). */
export const CATCH_UP_WINDOW_MS = 24 * 60 * 60 * 1000;
/** At most this many runs per pass; the watermark keeps the place, the next pass goes on from it. */
export const CATCH_UP_LIMIT = 5000;
/** The watermark trails a pass's end by this much: a status change another process stamped just before
 * but committed just after the scan is still seen by the next pass. */
export const CATCH_UP_LAG_MS = 60_000;
/** After start-up, a pass this often (README: Notifications says "every minute"). */
export const CATCH_UP_EVERY_MS = 60_000;
const PAGE = 500;

export interface CatchUpOptions {
  store: NotificationStore;
  load: (instanceId: string) => Promise<GraphInstanceRecord | null>;
  publicUrl: string;
  now?: number;
}

/**
 * Writes the outbox rows a dead process's listener never wrote: the listener inserts them only after a
 * status change commits, so a crash in between leaves a settled run without its rows. Scans the runs
 * whose status changed since the stored watermark (within the window) and inserts, per enabled
 * notification made before the change, the rows it should have had; the outbox's unique key leaves
 * those already there (written, sent or given up) alone, so any number of processes may run it.
 * Returns how many rows it added.
 */
export async function catchUpNotifications(o: CatchUpOptions): Promise<number> {
  const now = o.now ?? Date.now();
  const notifications = (await o.store.list()).filter((n) => n.enabled);
  const oldest = Math.min(...notifications.map((n) => n.createdAt));
  let key = { after: Math.max(now - CATCH_UP_WINDOW_MS, await o.store.watermark(), oldest - CATCH_UP_LAG_MS), afterId: "" };
  let added = 0;
  let complete = notifications.length === 0;
  for (let scanned = 0; !complete && scanned < CATCH_UP_LIMIT; ) {
    const page = await o.store.settledRuns({ ...key, until: now, limit: PAGE });
    for (const run of page) added += await catchUpRun(o, notifications, run);
    scanned += page.length;
    complete = page.length < PAGE;
    if (!complete) key = { after: page[page.length - 1].updatedAt, afterId: page[page.length - 1].instanceId };
  }
  // Complete: covered up to now (less the lag). Cut short by the limit: up to the last run looked at.
  await o.store.raiseWatermark(complete ? now - CATCH_UP_LAG_MS : key.after);
  return added;
}

async function catchUpRun(o: CatchUpOptions, all: NotificationRecord[], run: SettledRun): Promise<number> {
  const notifications = all.filter((n) => n.events.includes(run.status === "paused" ? "waiting" : (run.status as NotificationEvent)));
  if (notifications.length === 0) return 0; // nobody asked for this status: no event log or instance read
  const change = await o.store.statusChange(run.instanceId, run.version);
  if (!change || change.to !== run.status) return 0;
  // A notification tells of what happened after it was made, never of older runs.
  const newer = notifications.filter((n) => n.createdAt < change.at);
  const instance = newer.length === 0 ? null : await o.load(run.instanceId);
  if (!instance || instance.version !== run.version) return 0;
  const rows = outboxRowsFor(newer, instance, change, run.version, o.publicUrl);
  return rows.length === 0 ? 0 : await o.store.enqueue(rows);
}
