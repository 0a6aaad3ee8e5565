-- Committed engine events are announced once per statement, not once per row: listeners read
-- engine_events by id (a notification only says "read now"), so the payload carries nothing and
-- PostgreSQL folds the equal notifications of one transaction into one. Per row, a 10-node chain's
-- ~56 events were ~56 notifications, each queued at commit and delivered to every listening process.
CREATE OR REPLACE FUNCTION "modex_announce_event"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('modex_events', '');
    RETURN NULL;
END
$$;

DROP TRIGGER "engine_events_announce" ON "engine_events";
CREATE TRIGGER "engine_events_announce" AFTER INSERT ON "engine_events" FOR EACH STATEMENT EXECUTE FUNCTION "modex_announce_event"();
