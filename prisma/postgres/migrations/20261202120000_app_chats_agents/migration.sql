-- Chats and agents on PostgreSQL (issue 19): the tables of the SQLite migrations chat_sessions,
-- agent_definitions, agent_spans and agent_node_memory, mirrored. Chat times are epoch milliseconds
-- (BIGINT) as on SQLite; DATETIME columns are TIMESTAMPTZ(3).

-- CreateTable
CREATE TABLE "chat_sessions" (
    "session_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "agent" TEXT,
    "turns" INTEGER NOT NULL DEFAULT 0,
    "running_turn" TEXT,
    "awaiting_approval" TEXT,
    "created_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,

    CONSTRAINT "chat_sessions_pkey" PRIMARY KEY ("session_id")
);
CREATE INDEX "chat_sessions_updated_at_idx" ON "chat_sessions"("updated_at");

-- Every process numbers its chat events from this one sequence (the column's default), so a session's
-- numbers only grow, whichever process wrote them; numbers of rolled-back inserts are skipped (readers
-- ask for `seq > after` and never count on consecutive numbers).
CREATE TABLE "chat_events" (
    "seq" BIGSERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "at" BIGINT NOT NULL,
    "body" JSON NOT NULL,

    CONSTRAINT "chat_events_pkey" PRIMARY KEY ("seq")
);
CREATE INDEX "chat_events_session_id_seq_idx" ON "chat_events"("session_id", "seq");

CREATE TABLE "chat_memory" (
    "session_id" TEXT NOT NULL,
    "messages" JSON NOT NULL,

    CONSTRAINT "chat_memory_pkey" PRIMARY KEY ("session_id")
);

CREATE TABLE "chat_approvals" (
    "transaction_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "record" JSON NOT NULL,
    "snapshot" JSON,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "chat_approvals_pkey" PRIMARY KEY ("transaction_id")
);
CREATE INDEX "chat_approvals_session_id_status_idx" ON "chat_approvals"("session_id", "status");

-- Named agent definitions: immutable, content-addressed revisions; the latest row of a name is in use.
CREATE TABLE "agent_definitions" (
    "agent_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "yaml" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_definitions_pkey" PRIMARY KEY ("agent_id")
);
CREATE INDEX "agent_definitions_name_created_at_idx" ON "agent_definitions"("name", "created_at");

-- Finished agent spans. `written` is the order they were written in (SQLite's rowid: the tie-break of
-- spans that started in the same millisecond).
CREATE TABLE "agent_spans" (
    "span_id" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "parent_span_id" TEXT,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,
    "attributes" JSON NOT NULL,
    "status_code" TEXT NOT NULL,
    "status_message" TEXT,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "written" BIGSERIAL NOT NULL,

    CONSTRAINT "agent_spans_pkey" PRIMARY KEY ("span_id")
);
CREATE INDEX "agent_spans_trace_id_start_time_idx" ON "agent_spans"("trace_id", "start_time");
CREATE INDEX "agent_spans_session_id_start_time_idx" ON "agent_spans"("session_id", "start_time");

-- Agent nodes' conversations per (instance, node), the approvals their turns wait on, and the frozen turns.
CREATE TABLE "agent_node_memory" (
    "session_id" TEXT NOT NULL,
    "instance_id" TEXT NOT NULL,
    "node" TEXT NOT NULL,
    "messages" JSON NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_node_memory_pkey" PRIMARY KEY ("session_id")
);
CREATE INDEX "agent_node_memory_instance_id_idx" ON "agent_node_memory"("instance_id");

CREATE TABLE "agent_approvals" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "payload" JSON NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_approvals_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "agent_approvals_session_id_status_idx" ON "agent_approvals"("session_id", "status");

CREATE TABLE "agent_turn_snapshots" (
    "turn_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "snapshot" JSON NOT NULL,
    "taken_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_turn_snapshots_pkey" PRIMARY KEY ("turn_id")
);
