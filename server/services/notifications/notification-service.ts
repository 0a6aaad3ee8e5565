import { randomUUID } from "node:crypto";
import { ServiceError, notFound } from "@/server/services/errors";
import type { SpecService } from "@/server/services/spec-service";
import { newNotificationSecret } from "./delivery-signature";
import type { NotificationDispatcher } from "./notification-dispatcher";
import { NOTIFICATION_EVENTS, type DeliveryRecord, type NotificationEvent, type NotificationRecord } from "./notification-records";
import type { NotificationStore } from "./notification-store";
import { outboxRow } from "./notification-watcher";

/** What lists show: everything but the secret, which is shown once, when the notification is made. */
export type NotificationView = Omit<NotificationRecord, "secret">;
export type NotificationWithSecret = NotificationView & { secret: string };
/** A delivery as lists show it (the body is what was sent). */
export type DeliveryView = Omit<DeliveryRecord, "claimedUntil">;

export interface NotificationInput {
  url: string;
  events: readonly string[];
  graph?: string | null;
  enabled?: boolean;
}

export const NOTIFICATION_LIMITS = { urlLength: 2_000, deliveriesShown: 50 } as const;

/** Outgoing webhooks: made, listed, enabled or disabled, deleted, tested; their deliveries. */
export class NotificationService {
  constructor(
    private readonly deps: { store: NotificationStore; dispatcher: NotificationDispatcher; specs: SpecService; now?: () => number },
  ) {}

  async list(): Promise<NotificationView[]> {
    return (await this.deps.store.list()).map(view);
  }

  async create(input: NotificationInput): Promise<NotificationWithSecret> {
    const url = validUrl(input.url);
    const events = validEvents(input.events);
    const graph = input.graph?.trim() || null;
    if (graph !== null) await this.deps.specs.resolve(graph); // NOT_FOUND for an unknown graph
    const record: NotificationRecord = {
      id: `ntf_${randomUUID().replaceAll("-", "").slice(0, 16)}`,
      url,
      events,
      graph,
      enabled: input.enabled ?? true,
      secret: newNotificationSecret(),
      createdAt: this.now(),
    };
    await this.deps.store.create(record);
    return { ...view(record), secret: record.secret };
  }

  async setEnabled(id: string, enabled: boolean): Promise<NotificationView> {
    if (!(await this.deps.store.setEnabled(id, enabled))) throw notFound("notification", id);
    return view((await this.require(id)));
  }

  async remove(id: string): Promise<{ id: string; removed: true }> {
    if (!(await this.deps.store.remove(id))) throw notFound("notification", id);
    return { id, removed: true };
  }

  /**
   * Sends a test delivery (event "test", even to a disabled notification) through the outbox like any
   * other, and waits up to `waitMs` for its first attempt: the answer says how it went.
   */
  async test(id: string, waitMs = 7_000): Promise<DeliveryView> {
    const n = await this.require(id);
    const now = this.now();
    const instanceId = `test-${randomUUID()}`;
    const row = outboxRow(n, { event: "test", instance_id: instanceId, graph: n.graph ?? "", version: 0, status: "test", at: new Date(now).toISOString(), url_to_run: "" }, now);
    await this.deps.store.enqueue([row]);
    this.deps.dispatcher.wake();
    const until = Date.now() + waitMs;
    for (;;) {
      const found = (await this.deps.store.deliveries(id, NOTIFICATION_LIMITS.deliveriesShown)).find((d) => d.id === row.id);
      if (!found || found.attempts > 0 || Date.now() >= until) return deliveryView(found ?? row);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async deliveries(id: string): Promise<DeliveryView[]> {
    await this.require(id);
    return (await this.deps.store.deliveries(id, NOTIFICATION_LIMITS.deliveriesShown)).map(deliveryView);
  }

  private async require(id: string): Promise<NotificationRecord> {
    const n = await this.deps.store.get(id);
    if (!n) throw notFound("notification", id);
    return n;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}

function validUrl(raw: string): string {
  const text = raw.trim();
  if (text.length === 0) throw new ServiceError("BAD_REQUEST", "url is required: the http:// or https:// address to POST to");
  if (text.length > NOTIFICATION_LIMITS.urlLength) throw new ServiceError("BAD_REQUEST", `url is longer than ${NOTIFICATION_LIMITS.urlLength} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ServiceError("BAD_REQUEST", `url ${JSON.stringify(text)} is not a URL: give a whole address such as https://example.com/modex`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ServiceError("BAD_REQUEST", `url must be http:// or https://, not ${url.protocol}//`);
  return url.toString();
}

function validEvents(raw: readonly string[]): NotificationEvent[] {
  if (raw.length === 0) throw new ServiceError("BAD_REQUEST", `events is empty: choose some of ${NOTIFICATION_EVENTS.join(", ")}`);
  const unknown = raw.filter((e) => !(NOTIFICATION_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0) throw new ServiceError("BAD_REQUEST", `unknown event ${unknown.join(", ")}: events are ${NOTIFICATION_EVENTS.join(", ")}`);
  return NOTIFICATION_EVENTS.filter((e) => raw.includes(e));
}

function view(record: NotificationRecord): NotificationView {
  const { secret: _secret, ...rest } = record;
  return rest;
}

function deliveryView(d: DeliveryRecord): DeliveryView {
  const { claimedUntil: _claimed, ...rest } = d;
  return rest;
}
