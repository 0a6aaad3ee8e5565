-- Memory cleanup (server/agent/memory): the summary that stands for a chat's older messages in the model's
-- context, kept beside the messages (which stay whole) so a restart starts from it instead of redoing it.
ALTER TABLE "chat_memory" ADD COLUMN "summary" TEXT;
