-- Fewer index entries per step of the deliver ledger (measured in docs/cluster.md, "A step's statement").
--
-- No index of deliver_rows names the status, so an input's CONSUMED_PENDING → CONSUMED_COMPLETED (every
-- completion's, in the step statement of server/db/pg/pg-coordinator.ts) changes no indexed column and is
-- a HOT update: a new row version on the same page, no index entry. PostgreSQL counts the columns of a
-- partial index's predicate as indexed, so the three partial indexes on the status are replaced.

-- A node's inputs, in delivery order: what a begin claims (the open ones, PENDING or CONSUMED_PENDING,
-- filtered on the row). A node's completed inputs stay in it: a begin of a node run n times reads n rows,
-- as it already reads the node's n invocations for its version. Also an instance's rows (its prefix).
DROP INDEX "deliver_rows_open_idx";
CREATE INDEX "deliver_rows_target_idx" ON "deliver_rows"("instance_id", "target_node_id", "seq");

-- Claimed rows by consumer: what a completion makes CONSUMED_COMPLETED. The consumer is set by the claim
-- and kept by the completion.
DROP INDEX "deliver_rows_claimed_idx";
CREATE INDEX "deliver_rows_consumer_idx" ON "deliver_rows"("consumed_by") WHERE "consumed_by" IS NOT NULL;

-- Staged rows by source (recovery's promotion or discard). A STAGED row has no consumer; rows written
-- claimed (a chain's next input) are not indexed here at all.
DROP INDEX "deliver_rows_staged_idx";
CREATE INDEX "deliver_rows_unclaimed_source_idx" ON "deliver_rows"("source_invocation_id") WHERE "consumed_by" IS NULL;

-- The deliver id (unique already) is the primary key: the (instance_id, seq) index is one entry per row
-- that nothing needs, as an instance's rows are a prefix of deliver_rows_target_idx (sorted by seq).
ALTER TABLE "deliver_rows" DROP CONSTRAINT "deliver_rows_pkey";
ALTER TABLE "deliver_rows" ADD CONSTRAINT "deliver_rows_pkey" PRIMARY KEY USING INDEX "deliver_rows_deliver_id_key";
