/** What a notification is and what its outbox holds: shared by the stores, the dispatcher and the service. */

/** The run states a notification may be told of. "waiting": the run began waiting for a person's input or approval. */
export const NOTIFICATION_EVENTS = ["completed", "failed", "stopped", "waiting"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export interface NotificationRecord {
  id: string;
  url: string;
  events: NotificationEvent[];
  /** Only runs of this graph (spec name); null: every graph. */
  graph: string | null;
  enabled: boolean;
  secret: string;
  createdAt: number;
}

/** "pending": to be sent (again); "delivered": a 2xx answered; "failed": given up after the last retry. */
export type DeliveryState = "pending" | "delivered" | "failed";

export interface DeliveryAttempt {
  at: number;
  /** The HTTP status answered, or null when none was (refused, timed out). */
  status: number | null;
  error: string | null;
}

/** One outbox row: a notification of one event of one instance version (or a test, event "test"). */
export interface DeliveryRecord {
  id: string;
  notificationId: string;
  instanceId: string;
  version: number;
  event: NotificationEvent | "test";
  /** The JSON body, byte for byte as signed and sent. */
  body: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  /** Held by a sending process until then (null: not claimed). */
  claimedUntil: number | null;
  lastStatus: number | null;
  lastError: string | null;
  attemptLog: DeliveryAttempt[];
  createdAt: number;
  updatedAt: number;
}

/** What a finished attempt changes on its row (the claim is released with it). */
export type DeliverySettlement = Pick<DeliveryRecord, "state" | "attempts" | "nextAttemptAt" | "lastStatus" | "lastError" | "attemptLog" | "updatedAt">;

/** A run version the catch-up looks at: its status and when its row last changed. */
export interface SettledRun {
  instanceId: string;
  version: number;
  status: string;
  updatedAt: number;
}

/** An `instance_status` event as the log holds it. */
export interface StatusChange {
  to: string;
  at: number;
  error?: string;
}
