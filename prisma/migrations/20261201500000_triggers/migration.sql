-- Triggers: cron schedules and webhooks that start runs. `next_fire_at` is the due fire not yet handled,
-- committed before anything is told of it: a fire due while the server was down is found at start-up.
CREATE TABLE "trigger_schedules" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "spec" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "overlap" TEXT NOT NULL,
    "missed" TEXT NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "declared_in" TEXT,
    "next_fire_at" DATETIME,
    "last_fire_at" DATETIME,
    "last_outcome" TEXT,
    "last_instance_id" TEXT,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL
);
CREATE INDEX "trigger_schedules_declared_in_idx" ON "trigger_schedules"("declared_in");

CREATE TABLE "trigger_hooks" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "spec" TEXT NOT NULL,
    "auth" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "max_body_bytes" INTEGER NOT NULL,
    "rate_per_minute" INTEGER NOT NULL,
    "created_at" DATETIME NOT NULL,
    "rotated_at" DATETIME NOT NULL
);
