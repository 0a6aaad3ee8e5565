-- Leaner instance rows: a run writes its instance at creation and at every status change, each a page
-- per b-tree touched. Both tables are now clustered on their primary key (instance_id, version), so
-- there is no rowid b-tree beside the key's index; and the two listing indexes become one that also
-- holds the status, so a status change moves one index entry, not two. A listing by status walks that
-- index in "latest first" order, reading no table row until one matches.
CREATE TABLE "new_graph_instances" (
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
) WITHOUT ROWID;

INSERT INTO "new_graph_instances" ("instance_id", "version", "is_latest", "status", "graph_name", "spec_id",
    "node_id_map", "attrs", "state", "created_at", "updated_at")
SELECT "instance_id", "version", "is_latest", "status", "graph_name", "spec_id", "node_id_map", "attrs",
    "state", "created_at", "updated_at"
FROM "graph_instances";

DROP TABLE "graph_instances";
ALTER TABLE "new_graph_instances" RENAME TO "graph_instances";

CREATE INDEX "graph_instances_is_latest_updated_at_instance_id_status_idx" ON "graph_instances"("is_latest", "updated_at", "instance_id", "status");

CREATE TABLE "new_graph_io_records" (
    "instance_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "input" JSONB NOT NULL,
    "output" JSONB,

    PRIMARY KEY ("instance_id", "version")
) WITHOUT ROWID;

INSERT INTO "new_graph_io_records" ("instance_id", "version", "input", "output")
SELECT "instance_id", "version", "input", "output" FROM "graph_io_records";

DROP TABLE "graph_io_records";
ALTER TABLE "new_graph_io_records" RENAME TO "graph_io_records";
