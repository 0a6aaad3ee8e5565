-- What the app keeps about instances besides the engine's own tables (issue 19): archive marks, the graph
-- state as of each point of a run (time travel and forks), and the indexes the Instances list pages on.
-- Mirrors prisma/migrations/20261201200000_instance_listing and 20261201800000_state_snapshots (SQLite).
-- Written by server/services/pg-instance-archive.ts, pg-instance-listing.ts and
-- server/db/pg/pg-state-snapshots.ts.

-- CreateTable
CREATE TABLE "archived_instances" (
    "instance_id" TEXT NOT NULL,
    "archived_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "archived_instances_pkey" PRIMARY KEY ("instance_id")
);

-- CreateTable
-- Keyed by the invocation whose completion saved the state (`<instance id>.<snowflake>`, or
-- `<instance id>.seed` for a fork's seed). The key compares bytewise (COLLATE "C", as SQLite does), so an
-- instance's snapshots are one range of the primary key ('/' follows '.') whatever the database's locale:
-- deleting an instance removes them with one index range scan.
CREATE TABLE "state_snapshots" (
    "invocation_id" TEXT COLLATE "C" NOT NULL,
    "state" JSON NOT NULL,

    CONSTRAINT "state_snapshots_pkey" PRIMARY KEY ("invocation_id")
);

-- The Instances list's order, latest activity first with the instance id (bytewise, as on SQLite) breaking
-- ties, as an index: a page reads its rows and stops, for all graphs or for one. Partial and collated
-- indexes are beyond Prisma's schema language, so they are in this file only.
CREATE INDEX "graph_instances_latest_activity_idx"
    ON "graph_instances"("updated_at" DESC, "instance_id" COLLATE "C" DESC) WHERE "is_latest";

CREATE INDEX "graph_instances_latest_graph_activity_idx"
    ON "graph_instances"("graph_name", "updated_at" DESC, "instance_id" COLLATE "C" DESC) WHERE "is_latest";
