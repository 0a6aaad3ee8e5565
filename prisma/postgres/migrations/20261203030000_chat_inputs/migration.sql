-- Messages sent while a chat's turn ran (busy input: QUEUE, INTERRUPT, STEER) are acknowledged once
-- their row is committed, and kept until they run: whichever process frees the chat (or finds it free
-- with inputs still waiting, its sender gone) delivers them, in order.
CREATE TABLE "chat_inputs" (
    "input_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "turn_id" TEXT,
    "position" BIGINT NOT NULL,
    "at" BIGINT NOT NULL,

    CONSTRAINT "chat_inputs_pkey" PRIMARY KEY ("input_id")
);
CREATE INDEX "chat_inputs_session_id_state_idx" ON "chat_inputs"("session_id", "state");
CREATE INDEX "chat_inputs_state_idx" ON "chat_inputs"("state");
