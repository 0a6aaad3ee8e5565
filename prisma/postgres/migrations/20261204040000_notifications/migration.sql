-- Outgoing notifications and their outbox (see the SQLite migration of the same name). Several web
-- processes insert a delivery once (the unique key) and claim it with FOR UPDATE SKIP LOCKED.
CREATE TABLE "notifications" (
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "graph" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "notification_deliveries" (
    "id" TEXT NOT NULL,
    "notification_id" TEXT NOT NULL,
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "claimed_until" TIMESTAMPTZ(3),
    "last_status" INTEGER,
    "last_error" TEXT,
    "attempt_log" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "notification_deliveries_notification_id_instance_id_version_event_key" ON "notification_deliveries"("notification_id", "instance_id", "version", "event");
CREATE INDEX "notification_deliveries_state_next_attempt_at_idx" ON "notification_deliveries"("state", "next_attempt_at");
CREATE INDEX "notification_deliveries_notification_id_created_at_idx" ON "notification_deliveries"("notification_id", "created_at");
