-- The fence (20261202000000_cluster_leases) fires only on a worker's connections: the WHEN clause is
-- checked by PostgreSQL itself, so on any other connection (a single `all` process on PostgreSQL, the web
-- process, tools) a write no longer calls the PL/pgSQL function just to learn it has nothing to check.
-- The function's own check of the setting stays, so behaviour is the same either way.
DROP TRIGGER "graph_instances_fence" ON "graph_instances";
DROP TRIGGER "graph_io_records_fence" ON "graph_io_records";
DROP TRIGGER "node_invocations_fence" ON "node_invocations";
DROP TRIGGER "deliver_rows_fence" ON "deliver_rows";
DROP TRIGGER "engine_events_fence" ON "engine_events";

CREATE TRIGGER "graph_instances_fence" BEFORE INSERT OR UPDATE ON "graph_instances" FOR EACH ROW
    WHEN (current_setting('modex.worker', true) <> '') EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "graph_io_records_fence" BEFORE INSERT OR UPDATE ON "graph_io_records" FOR EACH ROW
    WHEN (current_setting('modex.worker', true) <> '') EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "node_invocations_fence" BEFORE INSERT OR UPDATE ON "node_invocations" FOR EACH ROW
    WHEN (current_setting('modex.worker', true) <> '') EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "deliver_rows_fence" BEFORE INSERT OR UPDATE ON "deliver_rows" FOR EACH ROW
    WHEN (current_setting('modex.worker', true) <> '') EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "engine_events_fence" BEFORE INSERT ON "engine_events" FOR EACH ROW
    WHEN (current_setting('modex.worker', true) <> '') EXECUTE FUNCTION "modex_fence"();
