-- Chats, agent definitions and extension settings across the processes of a cluster (issue 19).

-- A committed chat event is announced on channel modex_chat_events (at commit, so a listener never hears
-- of a row it cannot read). One notification per statement: listeners read the table by seq, the
-- payload carries nothing (and PostgreSQL folds equal notifications of one transaction into one).
CREATE FUNCTION "modex_announce_chat_events"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('modex_chat_events', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER "chat_events_announce" AFTER INSERT ON "chat_events" FOR EACH STATEMENT EXECUTE FUNCTION "modex_announce_chat_events"();

-- A saved agent definition or an extension toggle is announced on channel modex_settings (payload: the
-- table), so every process reads its definitions or toggles again.
CREATE FUNCTION "modex_announce_settings"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('modex_settings', TG_TABLE_NAME);
    RETURN NULL;
END
$$;

CREATE TRIGGER "agent_definitions_announce" AFTER INSERT OR UPDATE OR DELETE ON "agent_definitions" FOR EACH STATEMENT EXECUTE FUNCTION "modex_announce_settings"();
CREATE TRIGGER "extension_settings_announce" AFTER INSERT OR UPDATE OR DELETE ON "extension_settings" FOR EACH STATEMENT EXECUTE FUNCTION "modex_announce_settings"();

-- The web processes that are alive: each renews its row's expiry (a heartbeat); a process whose row
-- expired or is gone died, and the chat turns it owned are ended by a live one.
CREATE TABLE "cluster_processes" (
    "process_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cluster_processes_pkey" PRIMARY KEY ("process_id")
);

-- The process that runs a chat's running turn (null when none runs, or on one process without a cluster).
ALTER TABLE "chat_sessions" ADD COLUMN "running_owner" TEXT;
