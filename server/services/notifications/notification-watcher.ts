import { newSnowflake } from "@/server/graph/ids";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { StoredEvent } from "@/server/services/event-log";
import { waitingFor } from "@/server/services/waiting-for";
import type { DeliveryRecord, NotificationEvent, NotificationRecord, StatusChange } from "./notification-records";
import type { NotificationStore } from "./notification-store";

export interface WatcherOptions {
  store: NotificationStore;
  /** The instance as committed (graph name; for a pause, what it waits for). */
  load: (instanceId: string) => Promise<GraphInstanceRecord | null>;
  /** The app's own address, for `url_to_run`. */
  publicUrl: string;
  /** Rows were added: send them now. */
  enqueued: () => void;
}

/** The JSON body POSTed to a notification's URL. */
export interface NotificationBody {
  event: NotificationEvent | "test";
  instance_id: string;
  graph: string;
  version: number;
  status: string;
  /** When the run reached the state (ISO 8601). */
  at: string;
  url_to_run: string;
  /** What ended a failed run. */
  error?: string;
}

/**
 * Turns logged status changes into outbox rows, one per matching notification. It hears the event bus,
 * which announces only committed events (on PostgreSQL every web process hears every event): the rows'
 * unique key makes several processes, or a replay, insert each once. `observe` returns at once; the
 * work runs after it, so the engine is never held up.
 */
export class NotificationWatcher {
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: WatcherOptions) {}

  observe(stored: StoredEvent): void {
    const e = stored.event;
    if (e.type !== "instance_status" || !["completed", "failed", "stopped", "paused"].includes(e.to)) return;
    // One at a time, in order: a burst of finishing runs is queued in memory, not fanned out at once.
    this.chain = this.chain
      .then(() => this.handle(stored))
      .catch((error: unknown) => console.error(`[modex] notifications for ${stored.instanceId} not queued: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Resolves once what was observed so far is in the outbox (tests). */
  idle(): Promise<void> {
    return this.chain;
  }

  private async handle(stored: StoredEvent): Promise<void> {
    const e = stored.event;
    if (e.type !== "instance_status") return;
    const matching = (await this.o.store.list()).filter((n) => n.enabled);
    const instance = matching.length === 0 ? null : await this.o.load(stored.instanceId);
    const change = { to: e.to, at: stored.at, ...(e.error === undefined ? {} : { error: e.error }) };
    const rows = instance ? outboxRowsFor(matching, instance, change, e.version, this.o.publicUrl) : [];
    if (rows.length > 0 && (await this.o.store.enqueue(rows)) > 0) this.o.enqueued();
  }
}

/** The outbox rows of one status change of `instance`'s version `version`, one per notification that wants it. */
export function outboxRowsFor(
  notifications: NotificationRecord[],
  instance: GraphInstanceRecord,
  change: StatusChange,
  version: number,
  publicUrl: string,
): DeliveryRecord[] {
  const event = eventOf(change.to, instance);
  if (!event) return [];
  const body: NotificationBody = {
    event,
    instance_id: instance.instanceId,
    graph: instance.graphName,
    version,
    status: change.to,
    at: new Date(change.at).toISOString(),
    url_to_run: `${publicUrl.replace(/\/+$/, "")}/instances/${encodeURIComponent(instance.instanceId)}`,
    ...(change.error === undefined ? {} : { error: change.error }),
  };
  return notifications.filter((n) => wants(n, event, instance.graphName)).map((n) => outboxRow(n, body, change.at));
}

/** "waiting" is a pause for a person (an interrupt's payload is kept), not a drain's pause. */
function eventOf(status: string, instance: GraphInstanceRecord): NotificationEvent | null {
  if (status === "completed" || status === "failed" || status === "stopped") return status;
  return status === "paused" && waitingFor(instance) !== null ? "waiting" : null;
}

function wants(n: NotificationRecord, event: NotificationEvent, graph: string): boolean {
  return n.events.includes(event) && (n.graph === null || n.graph === graph);
}

export function outboxRow(n: NotificationRecord, body: NotificationBody, now: number): DeliveryRecord {
  return {
    id: `dlv_${newSnowflake(now)}`,
    notificationId: n.id,
    instanceId: body.instance_id,
    version: body.version,
    event: body.event,
    body: JSON.stringify(body),
    state: "pending",
    attempts: 0,
    nextAttemptAt: now,
    claimedUntil: null,
    lastStatus: null,
    lastError: null,
    attemptLog: [],
    createdAt: now,
    updatedAt: now,
  };
}
