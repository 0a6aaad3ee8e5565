-- What the spec list shows (description, node count) is kept with each revision when it is saved, so
-- listing specs never parses YAML: with one 20,000-node spec saved, every list re-read it for seconds
-- and blocked the server meanwhile. SQL cannot read YAML, so rows saved before this migration keep
-- listing_version 0 and the app reads their YAML once, on the first list, and stores what it found.
ALTER TABLE "graph_specs" ADD COLUMN "description" TEXT;
ALTER TABLE "graph_specs" ADD COLUMN "node_count" INTEGER;
ALTER TABLE "graph_specs" ADD COLUMN "listing_version" INTEGER NOT NULL DEFAULT 0;
