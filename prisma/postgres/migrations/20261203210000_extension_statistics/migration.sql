-- Extension statistics summed over every process of the cluster (each adds what it counted about once a
-- second) and kept across restarts; the Extensions page's reset empties them and moves the generation
-- on, so every process drops the counts it had not added yet. Written by PgExtensionStatisticsStore.
CREATE TABLE "extension_statistics" (
    "name" TEXT NOT NULL,
    "calls" BIGINT NOT NULL,
    "failures" BIGINT NOT NULL,
    "vetoes" BIGINT NOT NULL,
    "time_ms" DOUBLE PRECISION NOT NULL,
    "last_error_point" TEXT,
    "last_error_message" TEXT,
    "last_error_at" BIGINT,
    "updated_at" BIGINT NOT NULL,

    CONSTRAINT "extension_statistics_pkey" PRIMARY KEY ("name")
);

-- Each extension's own counters (secret_masking's masked, token_budget's vetoed, ...), summed likewise.
CREATE TABLE "extension_counters" (
    "name" TEXT NOT NULL,
    "counter" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "extension_counters_pkey" PRIMARY KEY ("name", "counter")
);

-- One row: how many resets there have been. A batch is added under a share lock of it, a reset takes
-- it exclusively: a batch counted before a reset is either emptied by it or dropped.
CREATE TABLE "extension_statistics_generation" (
    "id" INTEGER NOT NULL,
    "generation" BIGINT NOT NULL,

    CONSTRAINT "extension_statistics_generation_pkey" PRIMARY KEY ("id")
);
INSERT INTO "extension_statistics_generation" ("id", "generation") VALUES (1, 0);

-- token_budget's token total per instance (graph run) or chat session, added to atomically by any
-- process: a restart or another worker continues it.
CREATE TABLE "token_budget_totals" (
    "scope" TEXT NOT NULL,
    "tokens" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,

    CONSTRAINT "token_budget_totals_pkey" PRIMARY KEY ("scope")
);
