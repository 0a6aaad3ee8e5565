-- The Instances list filters and pages on the server (status, waiting for a person, graph, time range, text
-- search over id and input, archived) and shows totals, answering a filtered page of 100,000 instances in
-- well under 100 ms (npm run bench:list).
--
-- Archived instances and specs are rows of their own tables rather than columns of the run tables:
-- archiving never rewrites a hot row, a new version of an archived instance stays archived, and a listing
-- excludes them with one lookup in a small in-memory set per row.
CREATE TABLE "archived_instances" (
    "instance_id" TEXT NOT NULL PRIMARY KEY,
    "archived_at" DATETIME NOT NULL
) WITHOUT ROWID;

CREATE TABLE "archived_specs" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "archived_at" DATETIME NOT NULL
) WITHOUT ROWID;

-- A graph's runs newest first, and its totals, from the index alone: the "N total" link of a graph row.
CREATE INDEX "graph_instances_is_latest_graph_name_updated_at_instance_id_status_idx"
    ON "graph_instances"("is_latest", "graph_name", "updated_at", "instance_id", "status");

-- Totals by status without sorting: the list's status tabs count every latest version on each refresh.
CREATE INDEX "graph_instances_is_latest_status_idx" ON "graph_instances"("is_latest", "status");

-- Text search: a trigram index over each version's instance id and input (its first 2,000 characters),
-- so a substring search (LIKE '%…%', 3 characters or more) reads only matching rows instead of every
-- input. Kept by a trigger on the insert of an input (inputs never change); deleting an instance deletes
-- its rows (server/services/instance-archive.ts). Prisma's schema cannot express a virtual table, so it is
-- in this migration only.
CREATE VIRTUAL TABLE "instance_search" USING fts5(instance_id UNINDEXED, text, tokenize = 'trigram', detail = 'none');

INSERT INTO "instance_search" ("instance_id", "text")
SELECT "instance_id", "instance_id" || ' ' || substr("input", 1, 2000) FROM "graph_io_records";

CREATE TRIGGER "graph_io_records_search" AFTER INSERT ON "graph_io_records" BEGIN
    INSERT INTO "instance_search" ("instance_id", "text") VALUES (NEW."instance_id", NEW."instance_id" || ' ' || substr(NEW."input", 1, 2000));
END;
