-- Memory cleanup for agent nodes (server/agent/memory): the summary that stands for a node's older messages
-- in the model's context, kept beside its conversation (which stays whole) so its next invocation and a
-- restart start from it instead of redoing it.
ALTER TABLE "agent_node_memory" ADD COLUMN "summary" TEXT;
