-- Messages sent while a chat's turn ran (busy input: QUEUE, INTERRUPT, STEER) are acknowledged once
-- their row is committed, and kept until they run: a restart delivers the waiting ones, in order.
CREATE TABLE "chat_inputs" (
    "input_id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "turn_id" TEXT,
    "position" BIGINT NOT NULL,
    "at" BIGINT NOT NULL
);
CREATE INDEX "chat_inputs_session_id_state_idx" ON "chat_inputs"("session_id", "state");
CREATE INDEX "chat_inputs_state_idx" ON "chat_inputs"("state");
