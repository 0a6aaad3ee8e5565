-- CreateTable
CREATE TABLE "graph_specs" (
    "spec_id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "yaml" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL
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
    "state" JSONB,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,

    PRIMARY KEY ("instance_id", "version")
);

-- CreateTable
CREATE TABLE "graph_io_records" (
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "input" JSONB NOT NULL,
    "output" JSONB,

    PRIMARY KEY ("instance_id", "version")
);

-- CreateTable
CREATE TABLE "node_invocations" (
    "invocation_id" TEXT NOT NULL PRIMARY KEY,
    "instance_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "node_name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "parent_version" INTEGER,
    "status" TEXT NOT NULL,
    "started_at" DATETIME NOT NULL,
    "ended_at" DATETIME,
    "error" TEXT
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "deliver_rows" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "deliver_id" TEXT NOT NULL,
    "instance_id" TEXT NOT NULL,
    "source_node" TEXT NOT NULL,
    "source_node_id" TEXT NOT NULL,
    "source_invocation_id" TEXT,
    "target_node" TEXT NOT NULL,
    "target_node_id" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "consumed_by" TEXT,
    "created_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "engine_events" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "graph_specs_name_created_at_idx" ON "graph_specs"("name", "created_at");

-- CreateIndex
CREATE INDEX "graph_instances_is_latest_updated_at_instance_id_idx" ON "graph_instances"("is_latest", "updated_at", "instance_id");

-- CreateIndex
CREATE INDEX "graph_instances_is_latest_status_updated_at_instance_id_idx" ON "graph_instances"("is_latest", "status", "updated_at", "instance_id");

-- CreateIndex
CREATE UNIQUE INDEX "node_invocations_instance_id_node_id_version_key" ON "node_invocations"("instance_id", "node_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "deliver_rows_deliver_id_key" ON "deliver_rows"("deliver_id");

-- CreateIndex
CREATE INDEX "deliver_rows_instance_id_seq_idx" ON "deliver_rows"("instance_id", "seq");

-- CreateIndex (partial: the open rows of each node, in delivery order; rows leave it once completed)
CREATE INDEX "deliver_rows_consumable_idx" ON "deliver_rows"("instance_id", "target_node_id", "seq") WHERE "status" IN ('PENDING', 'CONSUMED_PENDING');

-- CreateIndex (partial: staged rows by source invocation)
CREATE INDEX "deliver_rows_staged_idx" ON "deliver_rows"("source_invocation_id") WHERE "status" = 'STAGED';

-- CreateIndex
CREATE INDEX "engine_events_instance_id_id_idx" ON "engine_events"("instance_id", "id");
