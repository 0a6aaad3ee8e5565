import type { DeliveryAttempt, DeliveryRecord, DeliverySettlement } from "./notification-records";
import type { NotificationStore } from "./notification-store";
import { signDelivery } from "./delivery-signature";

/** Waits before the 2nd, 3rd, 4th and 5th attempts; after the 5th fails the delivery is given up. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000] as const;
export const SEND_TIMEOUT_MS = 5_000;

export interface DispatcherOptions {
  store: NotificationStore;
  retryDelaysMs?: readonly number[];
  /** How often the outbox is looked at for due rows (a row enqueued in this process is sent at once: `wake`). */
  pollMs?: number;
  timeoutMs?: number;
  /** How long a claim holds a row: longer than a send can take, so a lapsed claim means its process died. */
  leaseMs?: number;
  now?: () => number;
}

/**
 * Sends the outbox: claims due rows (so no two processes send one at once), POSTs each, and records the
 * attempt. Never on the engine's path: it runs on its own timer, and a slow receiver only holds its row.
 * At least once: a process that dies after the POST and before recording it leaves the row claimed; once
 * the claim lapses another process (or the next start) sends it again.
 */
export class NotificationDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly o: Required<Omit<DispatcherOptions, "store">> & { store: NotificationStore };

  constructor(options: DispatcherOptions) {
    this.o = { retryDelaysMs: RETRY_DELAYS_MS, pollMs: 1_000, timeoutMs: SEND_TIMEOUT_MS, leaseMs: 60_000, now: Date.now, ...options };
  }

  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.o.pollMs);
    this.timer.unref?.();
    this.wake();
  }

  /** Stops the timer; resolves once the sends in flight are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Looks at the outbox now (one pass at a time; a wake during a pass makes another). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .then(() => undefined)
      .catch((error: unknown) => console.error(`[modex] notification dispatch failed: ${describe(error)}`))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Sends every due row (tests call it to step the outbox); returns how many attempts were made. */
  async drain(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = this.o.now();
      const batch = await this.o.store.claim({ now, until: now + this.o.leaseMs, limit: 10 });
      await Promise.all(batch.map((row) => this.attempt(row)));
      sent += batch.length;
      if (batch.length < 10) return sent;
    }
  }

  private async attempt(row: DeliveryRecord): Promise<void> {
    const notification = await this.o.store.get(row.notificationId);
    const result: DeliveryAttempt = notification
      ? notification.enabled || row.event === "test"
        ? await this.post(row, notification.url, notification.secret)
        : { at: this.o.now(), status: null, error: "the notification is disabled" }
      : { at: this.o.now(), status: null, error: "the notification was deleted" };
    await this.o.store.settle(row.id, row.claimedUntil!, this.settlement(row, result, notification?.enabled !== false || row.event === "test"));
  }

  private settlement(row: DeliveryRecord, result: DeliveryAttempt, retryable: boolean): DeliverySettlement {
    const attempts = row.attempts + 1;
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const delay = this.o.retryDelaysMs[attempts - 1];
    const state = ok ? "delivered" : retryable && delay !== undefined ? "pending" : "failed";
    return {
      state,
      attempts,
      nextAttemptAt: state === "pending" ? result.at + delay! : row.nextAttemptAt,
      lastStatus: result.status,
      lastError: result.error,
      attemptLog: [...row.attemptLog, result].slice(-20),
      updatedAt: this.o.now(),
    };
  }

  private async post(row: DeliveryRecord, url: string, secret: string): Promise<DeliveryAttempt> {
    const at = this.o.now();
    try {
      const response = await fetch(url, {
        method: "POST",
        body: row.body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.o.timeoutMs),
        headers: {
          "content-type": "application/json",
          "user-agent": "Modex-Notifications",
          "x-modex-event": row.event,
          "x-modex-delivery": row.id,
          "x-modex-signature": signDelivery(secret, row.body),
        },
      });
      await response.body?.cancel().catch(() => undefined); // the answer's body is not read
      const ok = response.status >= 200 && response.status < 300;
      return { at, status: response.status, error: ok ? null : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}` };
    } catch (error) {
      return { at, status: null, error: describe(error) };
    }
  }
}

/** fetch's errors say "fetch failed"; the cause says why (ECONNREFUSED, a timeout). */
function describe(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return "timed out";
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code) return cause.message?.includes(cause.code) ? cause.message : `${cause.code}${cause.message ? `: ${cause.message}` : ""}`;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
