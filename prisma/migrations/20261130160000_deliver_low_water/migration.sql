-- A low-water mark per instance replaces the consumable index: every commit that inserts or consumes a
-- deliver row wrote a page of that index (~6 WAL frames per interrupt + resume cycle, one per chain
-- node). `deliver_low_water` is a seq of the instance's ledger below which no row is open (STAGED,
-- PENDING or CONSUMED_PENDING), and at most one past the last row that is not STAGED (only STAGED rows
-- are ever deleted, so every new row's seq is at or above it). Rows only move forward, so a mark stays
-- true; the engine raises it with each status change, and what the index served is now a range of the
-- ledger's primary key (instance_id, seq) from the mark: the open rows and what followed them.
ALTER TABLE "graph_instances" ADD COLUMN "deliver_low_water" INTEGER NOT NULL DEFAULT 1;

-- Every version row of an instance gets the instance's mark (the latest is the one read).
UPDATE "graph_instances" SET "deliver_low_water" = coalesce((
    SELECT min(
        coalesce(min(CASE WHEN "status" IN ('STAGED', 'PENDING', 'CONSUMED_PENDING') THEN "seq" END), max("seq") + 1),
        coalesce(max(CASE WHEN "status" <> 'STAGED' THEN "seq" END), 0) + 1)
    FROM "deliver_rows" WHERE "deliver_rows"."instance_id" = "graph_instances"."instance_id"), 1);

DROP INDEX "deliver_rows_consumable_idx";
