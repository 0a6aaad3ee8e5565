-- Extension statistics summed over every process (each adds what it counted about once a second) and
-- kept across restarts; the Extensions page's reset empties them and moves the generation on, so a
-- process drops the counts it had not added yet. Written by SqliteExtensionStatisticsStore.
CREATE TABLE "extension_statistics" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "calls" BIGINT NOT NULL,
    "failures" BIGINT NOT NULL,
    "vetoes" BIGINT NOT NULL,
    "time_ms" REAL NOT NULL,
    "last_error_point" TEXT,
    "last_error_message" TEXT,
    "last_error_at" BIGINT,
    "updated_at" BIGINT NOT NULL
);
-- Each extension's own counters (secret_masking's masked, token_budget's vetoed, ...), summed likewise.
CREATE TABLE "extension_counters" (
    "name" TEXT NOT NULL,
    "counter" TEXT NOT NULL,
    "value" REAL NOT NULL,
    PRIMARY KEY ("name", "counter")
);
-- One row: how many resets there have been.
CREATE TABLE "extension_statistics_generation" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "generation" BIGINT NOT NULL
);
INSERT INTO "extension_statistics_generation" ("id", "generation") VALUES (1, 0);
-- token_budget's token total per instance (graph run) or chat session: a restart continues it.
CREATE TABLE "token_budget_totals" (
    "scope" TEXT NOT NULL PRIMARY KEY,
    "tokens" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL
);
