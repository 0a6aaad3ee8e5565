-- A leaner deliver ledger: every node invocation commits its delivers, so each index on this table is a
-- page written (twice: WAL frame header and page) per node. The table is now clustered on
-- (instance_id, seq), which replaces the (instance_id, seq) index; seq counts per instance, so there is
-- no AUTOINCREMENT counter page to update either; deliver_id is looked up only within an instance, so it
-- keeps no index of its own.
CREATE TABLE "new_deliver_rows" (
    "instance_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "deliver_id" TEXT NOT NULL,
    "source_node" TEXT NOT NULL,
    "source_node_id" TEXT NOT NULL,
    "source_invocation_id" TEXT,
    "target_node" TEXT NOT NULL,
    "target_node_id" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "consumed_by" TEXT,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("instance_id", "seq")
) WITHOUT ROWID;

INSERT INTO "new_deliver_rows" ("instance_id", "seq", "deliver_id", "source_node", "source_node_id",
    "source_invocation_id", "target_node", "target_node_id", "content", "status", "consumed_by", "created_at")
SELECT "instance_id", "seq", "deliver_id", "source_node", "source_node_id", "source_invocation_id",
    "target_node", "target_node_id", "content", "status", "consumed_by", "created_at"
FROM "deliver_rows";

DROP TABLE "deliver_rows";
ALTER TABLE "new_deliver_rows" RENAME TO "deliver_rows";

CREATE INDEX "deliver_rows_consumable_idx" ON "deliver_rows"("instance_id", "target_node_id", "seq") WHERE "status" IN ('PENDING', 'CONSUMED_PENDING');

CREATE INDEX "deliver_rows_staged_idx" ON "deliver_rows"("source_invocation_id") WHERE "status" = 'STAGED';
