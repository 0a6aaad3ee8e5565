-- The app's small stores on PostgreSQL (issue 19): Idempotency-Keys, trigger schedules and webhooks,
-- extension settings, and revoked sessions; the SQLite tables of the same names, with TIMESTAMPTZ for
-- times and JSON for JSON text. Written by PgIdempotencyStore, PgScheduleStore, PgHookStore,
-- PgExtensionSettingsStore and PgSessionRevocations.

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "status" INTEGER,
    "response" JSON,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("scope", "key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- CreateTable
CREATE TABLE "trigger_schedules" (
    "name" TEXT NOT NULL,
    "spec" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "input" JSON NOT NULL,
    "overlap" TEXT NOT NULL,
    "missed" TEXT NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "declared_in" TEXT,
    "next_fire_at" TIMESTAMPTZ(3),
    "last_fire_at" TIMESTAMPTZ(3),
    "last_outcome" TEXT,
    "last_instance_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "trigger_schedules_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "trigger_schedules_declared_in_idx" ON "trigger_schedules"("declared_in");

-- CreateTable
CREATE TABLE "trigger_hooks" (
    "name" TEXT NOT NULL,
    "spec" TEXT NOT NULL,
    "auth" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "max_body_bytes" INTEGER NOT NULL,
    "rate_per_minute" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "rotated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "trigger_hooks_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "extension_settings" (
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "extension_settings_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "session_revocations" (
    "session_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "session_revocations_pkey" PRIMARY KEY ("session_id")
);

-- CreateIndex
CREATE INDEX "session_revocations_expires_at_idx" ON "session_revocations"("expires_at");
