-- Outgoing notifications (webhooks POSTed when a run completes, fails, stops or waits for a person) and
-- their outbox: a delivery row is committed before it is sent, unique per notification, instance, version
-- and event, so a replay or a second process inserts it once; pending rows are sent after a restart.
CREATE TABLE "notifications" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "graph" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "secret" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL
);

CREATE TABLE "notification_deliveries" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "notification_id" TEXT NOT NULL,
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME NOT NULL,
    "claimed_until" DATETIME,
    "last_status" INTEGER,
    "last_error" TEXT,
    "attempt_log" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL
);
CREATE UNIQUE INDEX "notification_deliveries_notification_id_instance_id_version_event_key" ON "notification_deliveries"("notification_id", "instance_id", "version", "event");
CREATE INDEX "notification_deliveries_state_next_attempt_at_idx" ON "notification_deliveries"("state", "next_attempt_at");
CREATE INDEX "notification_deliveries_notification_id_created_at_idx" ON "notification_deliveries"("notification_id", "created_at");
