-- The graph state after each node invocation that changed it (the instance's `state` column keeps only
-- the latest), so the state at any point of a run can be shown in replay and a run forked from there.
-- Keyed by the invocation whose completion saved it; an invocation id starts with its instance's id, so
-- an instance's snapshots are a range of the key. Written in the completion's own transaction.
CREATE TABLE "state_snapshots" (
    "invocation_id" TEXT NOT NULL PRIMARY KEY,
    "state" TEXT NOT NULL
) WITHOUT ROWID;
