-- The cluster layer (issue 19, server/cluster): per-instance leases that fence every write of a run, and
-- NOTIFY for committed engine events. Dispatch uses pg-boss, which keeps its own schema ("pgboss").

-- CreateTable
CREATE TABLE "cluster_leases" (
    "instance_id" TEXT NOT NULL,
    "owner" TEXT,
    "epoch" INTEGER NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "requested" TEXT,

    CONSTRAINT "cluster_leases_pkey" PRIMARY KEY ("instance_id")
);

-- CreateIndex
CREATE INDEX "cluster_leases_expires_at_idx" ON "cluster_leases"("expires_at");

-- The fence. A worker's connections carry its owner id (`-c modex.worker=<id>`); any row such a
-- connection writes for an instance must belong to an instance whose lease that worker holds, or the
-- statement fails with MX002 and rolls back. The lease row is read FOR SHARE, so a takeover (an UPDATE of
-- the row) waits for the old holder's write in flight, and every write after the takeover fails: a
-- worker that lost its lease never writes again for that instance. Connections without the setting (the
-- web process, migrations, tests) are not fenced.
CREATE FUNCTION "modex_fence"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
    me TEXT := current_setting('modex.worker', true);
    holder TEXT;
BEGIN
    IF me IS NULL OR me = '' THEN
        RETURN NEW;
    END IF;
    SELECT "owner" INTO holder FROM "cluster_leases" WHERE "instance_id" = NEW."instance_id" FOR SHARE;
    IF holder IS DISTINCT FROM me THEN
        RAISE EXCEPTION 'worker % does not hold the lease of instance %', me, NEW."instance_id" USING ERRCODE = 'MX002';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER "graph_instances_fence" BEFORE INSERT OR UPDATE ON "graph_instances" FOR EACH ROW EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "graph_io_records_fence" BEFORE INSERT OR UPDATE ON "graph_io_records" FOR EACH ROW EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "node_invocations_fence" BEFORE INSERT OR UPDATE ON "node_invocations" FOR EACH ROW EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "deliver_rows_fence" BEFORE INSERT OR UPDATE ON "deliver_rows" FOR EACH ROW EXECUTE FUNCTION "modex_fence"();
CREATE TRIGGER "engine_events_fence" BEFORE INSERT ON "engine_events" FOR EACH ROW EXECUTE FUNCTION "modex_fence"();

-- Every committed engine event is announced on channel modex_events as '<instance id>:<event id>'
-- (delivered at commit, so a listener never hears of a row it cannot read).
CREATE FUNCTION "modex_announce_event"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('modex_events', NEW."instance_id" || ':' || NEW."id");
    RETURN NULL;
END
$$;

CREATE TRIGGER "engine_events_announce" AFTER INSERT ON "engine_events" FOR EACH ROW EXECUTE FUNCTION "modex_announce_event"();
