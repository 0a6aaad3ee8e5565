-- Agent nodes remember: each (instance, node) keeps its conversation across invocations (a loop's next
-- pass sees its earlier turns; a node recovered after a crash sees its history), and a turn suspended on
-- an approval keeps its transaction and its frozen turn until someone decides (a restart in between
-- loses neither). Written through the engine's connection, inside the transaction of the step they
-- belong to.
CREATE TABLE "agent_node_memory" (
    "session_id" TEXT NOT NULL PRIMARY KEY,
    "instance_id" TEXT NOT NULL,
    "node" TEXT NOT NULL,
    "messages" TEXT NOT NULL,
    "updated_at" DATETIME NOT NULL
);

CREATE INDEX "agent_node_memory_instance_id_idx" ON "agent_node_memory"("instance_id");

CREATE TABLE "agent_approvals" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL
);

CREATE INDEX "agent_approvals_session_id_status_idx" ON "agent_approvals"("session_id", "status");

CREATE TABLE "agent_turn_snapshots" (
    "turn_id" TEXT NOT NULL PRIMARY KEY,
    "session_id" TEXT NOT NULL,
    "snapshot" TEXT NOT NULL,
    "taken_at" DATETIME NOT NULL
);
