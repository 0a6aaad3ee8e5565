-- The engine's tables on PostgreSQL (issue 19, first step): instances and their IO records, node
-- invocations, the deliver ledger and the event log. Written by server/db/pg/*.ts through prepared
-- statements; applied at start-up by server/db/pg/pg-migrate.ts.

-- CreateTable
CREATE TABLE "Meta" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "Meta_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "graph_instances" (
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "is_latest" BOOLEAN NOT NULL,
    "status" TEXT NOT NULL,
    "graph_name" TEXT NOT NULL,
    "spec_id" TEXT,
    "node_id_map" JSONB NOT NULL,
    "attrs" JSONB NOT NULL,
    "state" JSON,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "graph_instances_pkey" PRIMARY KEY ("instance_id", "version")
);

-- CreateTable
CREATE TABLE "graph_io_records" (
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "input" JSON NOT NULL,
    "output" JSON,

    CONSTRAINT "graph_io_records_pkey" PRIMARY KEY ("instance_id", "version")
);

-- CreateTable
CREATE TABLE "node_invocations" (
    "invocation_id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "instance_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "node_name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "parent_version" INTEGER,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "error" TEXT,

    CONSTRAINT "node_invocations_pkey" PRIMARY KEY ("invocation_id")
);

-- CreateTable
CREATE TABLE "deliver_rows" (
    "instance_id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "deliver_id" TEXT NOT NULL,
    "source_node" TEXT NOT NULL,
    "source_node_id" TEXT NOT NULL,
    "source_invocation_id" TEXT,
    "target_node" TEXT NOT NULL,
    "target_node_id" TEXT NOT NULL,
    "content" JSON NOT NULL,
    "status" TEXT NOT NULL,
    "consumed_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "deliver_rows_pkey" PRIMARY KEY ("instance_id", "seq")
);

-- CreateTable
CREATE TABLE "engine_events" (
    "id" BIGSERIAL NOT NULL,
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSON NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "engine_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "graph_instances_is_latest_updated_at_instance_id_status_idx" ON "graph_instances"("is_latest", "updated_at", "instance_id", "status");

-- CreateIndex
CREATE INDEX "graph_instances_is_latest_status_idx" ON "graph_instances"("is_latest", "status");

-- CreateIndex
CREATE UNIQUE INDEX "node_invocations_instance_id_node_id_version_key" ON "node_invocations"("instance_id", "node_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "deliver_rows_deliver_id_key" ON "deliver_rows"("deliver_id");

-- CreateIndex
CREATE INDEX "engine_events_instance_id_id_idx" ON "engine_events"("instance_id", "id");

-- Partial indexes: beyond Prisma's schema language (as WITHOUT ROWID is on SQLite), in this file only.
-- The latest version of an instance: what load, state saves and status changes address.
CREATE UNIQUE INDEX "graph_instances_latest_key" ON "graph_instances"("instance_id") WHERE "is_latest";

-- A node's open inputs (PENDING or CONSUMED_PENDING), in delivery order: what a begin claims.
CREATE INDEX "deliver_rows_open_idx" ON "deliver_rows"("instance_id", "target_node_id", "seq")
    WHERE "status" IN ('PENDING', 'CONSUMED_PENDING');

-- Staged rows by source (recovery's promotion or discard; the engine's completion writes PENDING rows).
CREATE INDEX "deliver_rows_staged_idx" ON "deliver_rows"("source_invocation_id") WHERE "status" = 'STAGED';

-- Claimed rows by consumer: what a completion makes CONSUMED_COMPLETED.
CREATE INDEX "deliver_rows_claimed_idx" ON "deliver_rows"("consumed_by") WHERE "status" = 'CONSUMED_PENDING';

-- Raised inside a statement that completed an invocation held in memory (server/db/pg/pg-coordinator.ts)
-- when its compare-and-swap found the invocation no longer RUNNING: the whole statement rolls back.
CREATE FUNCTION "modex_lost_race"("invocation_id" TEXT) RETURNS INTEGER LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'invocation % is no longer RUNNING', "invocation_id" USING ERRCODE = 'MX001';
END
$$;
