import { newSnowflake } from "@/server/graph/ids";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { StoredEvent } from "@/server/services/event-log";
import { waitingFor } from "@/server/services/waiting-for";
import type { DeliveryRecord, NotificationEvent, NotificationRecord } from "./notification-records";
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
    if (matching.length === 0) return;
    const instance = await this.o.load(stored.instanceId);
    if (!instance) return;
    const event = eventOf(e.to, instance);
    if (!event) return;
    const body: NotificationBody = {
      event,
      instance_id: stored.instanceId,
      graph: instance.graphName,
      version: e.version,
      status: e.to,
      at: new Date(stored.at).toISOString(),
      url_to_run: `${this.o.publicUrl.replace(/\/+$/, "")}/instances/${encodeURIComponent(stored.instanceId)}`,
      ...(e.error === undefined ? {} : { error: e.error }),
    };
    const rows = matching.filter((n) => wants(n, event, instance.graphName)).map((n) => outboxRow(n, body, stored.at));
    if (rows.length > 0 && (await this.o.store.enqueue(rows)) > 0) this.o.enqueued();
  }
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
