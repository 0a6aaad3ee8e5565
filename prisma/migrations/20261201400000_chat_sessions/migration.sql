-- Chats are durable: a session, every event it showed (the transcript, replayed by sequence number), the
-- conversation the agent reads between turns, and each approval with the snapshot of the turn it
-- suspended, so a restart keeps the transcript and a waiting approval can still be decided (the turn
-- resumes at TOOL from its snapshot). Times are epoch milliseconds. Written through the engine's
-- connection: streamed events ride the group commit, acknowledged changes commit before the answer.
CREATE TABLE "chat_sessions" (
    "session_id" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "agent" TEXT,
    "turns" INTEGER NOT NULL DEFAULT 0,
    "running_turn" TEXT,
    "awaiting_approval" TEXT,
    "created_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL
);
CREATE INDEX "chat_sessions_updated_at_idx" ON "chat_sessions"("updated_at");

CREATE TABLE "chat_events" (
    "seq" INTEGER NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "at" BIGINT NOT NULL,
    "body" TEXT NOT NULL
);
CREATE INDEX "chat_events_session_id_seq_idx" ON "chat_events"("session_id", "seq");

CREATE TABLE "chat_memory" (
    "session_id" TEXT NOT NULL PRIMARY KEY,
    "messages" TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE "chat_approvals" (
    "transaction_id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "record" TEXT NOT NULL,
    "snapshot" TEXT,
    "created_at" BIGINT NOT NULL
);
CREATE INDEX "chat_approvals_session_id_status_idx" ON "chat_approvals"("session_id", "status");
