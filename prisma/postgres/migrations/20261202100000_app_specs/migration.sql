-- The spec store on PostgreSQL (issue 19): immutable spec revisions and archived spec names, as on SQLite
-- (graph_specs, archived_specs), so that a spec saved through any web process can be run by any worker.
-- Written by server/services/pg-spec-store.ts.

-- CreateTable
CREATE TABLE "graph_specs" (
    "spec_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "yaml" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "description" TEXT,
    "node_count" INTEGER,
    "listing_version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "graph_specs_pkey" PRIMARY KEY ("spec_id")
);

-- CreateTable
CREATE TABLE "archived_specs" (
    "name" TEXT NOT NULL,
    "archived_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "archived_specs_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
-- A name's latest revision, and its history, newest first, from the index.
CREATE INDEX "graph_specs_name_created_at_idx" ON "graph_specs"("name", "created_at");
