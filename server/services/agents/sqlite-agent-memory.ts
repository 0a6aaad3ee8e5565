import { type Database } from "@/server/db/graph-database";
import { statement, toJson } from "@/server/db/sqlite-statements";
import { beginDeferred } from "@/server/db/deferred-transaction";
import type { ApprovalStore } from "@/server/agent/approval/approval-store";
import { ApprovalTransactionSchema, type ApprovalTransaction } from "@/server/agent/approval/approval-types";
import { TurnSnapshotSchema, type TurnSnapshot, type TurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import type { ChatMessage } from "@/server/agent/llm/messages";
import { parseSummary, type ContextSummary, type ContextSummaryStore } from "@/server/agent/memory/context-summary";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import type { NodeCheckpointStore } from "@/server/agent/graph-node/node-checkpoints";

const SQL = {
  loadMemory: `SELECT messages FROM agent_node_memory WHERE session_id = ?`,
  saveMemory: `INSERT INTO agent_node_memory (session_id, instance_id, node, messages, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT(session_id) DO UPDATE SET messages = excluded.messages, updated_at = excluded.updated_at`,
  loadSummary: `SELECT summary FROM agent_node_memory WHERE session_id = ?`,
  // A summary may come before the node's first messages are saved (a first turn over budget): they follow.
  saveSummary: `INSERT INTO agent_node_memory (session_id, instance_id, node, messages, summary, updated_at) VALUES (?, ?, ?, '[]', ?, ?)
    ON CONFLICT(session_id) DO UPDATE SET summary = excluded.summary`,
  saveApproval: `INSERT INTO agent_approvals (id, session_id, turn_id, status, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT(id) DO UPDATE SET status = excluded.status, payload = excluded.payload`,
  getApproval: `SELECT payload FROM agent_approvals WHERE id = ?`,
  pendingApprovals: `SELECT payload FROM agent_approvals WHERE session_id = ? AND status = 'pending' ORDER BY created_at, id`,
  saveSnapshot: `INSERT INTO agent_turn_snapshots (turn_id, session_id, snapshot, taken_at) VALUES (?, ?, ?, ?)
    ON CONFLICT(turn_id) DO UPDATE SET snapshot = excluded.snapshot, taken_at = excluded.taken_at`,
  loadSnapshot: `SELECT snapshot FROM agent_turn_snapshots WHERE turn_id = ?`,
  deleteSnapshot: `DELETE FROM agent_turn_snapshots WHERE turn_id = ?`,
} as const;

/**
 * What an agent node keeps between its invocations and across a restart, on the engine's own SQLite
 * connection: its conversation (session `<instance>:<node>`) with its memory-cleanup summary, the approval
 * a turn waits on, and the frozen turn. The writes are plain statements on that connection, so a write made while a run's step is
 * deferred joins the step's transaction (graph-database.ts): the conversation commits with the node's
 * completion, an approval with the instance's move to paused, and nothing is announced before. A
 * running turn's iteration checkpoint shares the snapshot table, under its invocation's key.
 */
export class SqliteAgentMemory implements SessionMemory, ContextSummaryStore {
  readonly approvals: ApprovalStore;
  readonly snapshots: TurnSnapshotStore;
  readonly checkpoints: NodeCheckpointStore;

  constructor(private readonly db: Database) {
    this.approvals = new SqliteApprovalStore(db);
    this.snapshots = new SqliteTurnSnapshotStore(db);
    this.checkpoints = new SqliteNodeCheckpointStore(db);
  }

  async load(sessionId: string): Promise<ChatMessage[]> {
    return this.loadNow(sessionId);
  }

  loadNow(sessionId: string): ChatMessage[] {
    const row = statement(this.db, SQL.loadMemory).get(sessionId) as { messages: string } | undefined;
    return row ? (JSON.parse(row.messages) as ChatMessage[]) : [];
  }

  /**
   * Joins (or opens) the engine's deferred transaction: what an agent node writes next commits with the
   * run's next step, at the latest at the next macrotask, and is announced only after that commit.
   */
  joinDeferred = (): void => {
    beginDeferred(this.db, false);
  };

  async save(sessionId: string, messages: readonly ChatMessage[]): Promise<void> {
    this.joinDeferred();
    const { instanceId, node } = sessionParts(sessionId);
    statement(this.db, SQL.saveMemory).run(sessionId, instanceId, node, toJson(messages), Date.now());
  }

  loadSummary(sessionId: string): ContextSummary | null {
    const row = statement(this.db, SQL.loadSummary).get(sessionId) as { summary: string | null } | undefined;
    return row?.summary ? parseSummary(JSON.parse(row.summary)) : null;
  }

  saveSummary(sessionId: string, summary: ContextSummary): void {
    this.joinDeferred();
    const { instanceId, node } = sessionParts(sessionId);
    statement(this.db, SQL.saveSummary).run(sessionId, instanceId, node, toJson(summary), Date.now());
  }
}

/** An agent node's session id is `<instance>:<node>`. */
export function sessionParts(sessionId: string): { instanceId: string; node: string } {
  const cut = sessionId.lastIndexOf(":");
  return cut === -1 ? { instanceId: sessionId, node: "" } : { instanceId: sessionId.slice(0, cut), node: sessionId.slice(cut + 1) };
}

class SqliteApprovalStore implements ApprovalStore {
  constructor(private readonly db: Database) {}

  async save(transaction: ApprovalTransaction): Promise<void> {
    const t = ApprovalTransactionSchema.parse(transaction);
    statement(this.db, SQL.saveApproval).run(t.id, t.sessionId, t.turnId, t.status, toJson(t), t.createdAt);
  }

  async get(id: string): Promise<ApprovalTransaction | undefined> {
    const row = statement(this.db, SQL.getApproval).get(id) as { payload: string } | undefined;
    return row ? ApprovalTransactionSchema.parse(JSON.parse(row.payload)) : undefined;
  }

  async pending(sessionId: string): Promise<ApprovalTransaction[]> {
    const rows = statement(this.db, SQL.pendingApprovals).all(sessionId) as { payload: string }[];
    return rows.map((r) => ApprovalTransactionSchema.parse(JSON.parse(r.payload)));
  }
}

class SqliteTurnSnapshotStore implements TurnSnapshotStore {
  constructor(private readonly db: Database) {}

  async save(snapshot: TurnSnapshot): Promise<void> {
    const s = TurnSnapshotSchema.parse(snapshot);
    statement(this.db, SQL.saveSnapshot).run(s.turnId, s.sessionId, toJson(s), s.takenAt);
  }

  async load(turnId: string): Promise<TurnSnapshot | undefined> {
    const row = statement(this.db, SQL.loadSnapshot).get(turnId) as { snapshot: string } | undefined;
    return row ? TurnSnapshotSchema.parse(JSON.parse(row.snapshot)) : undefined;
  }
}

/**
 * A running node turn's iteration checkpoint, in agent_turn_snapshots under its invocation's key (the
 * session column is the node's, so the run's deletion takes it). A save commits with the connection's
 * next commit, before the turn's next model call answers; the delete joins the step that completes the
 * node, so a crash before that completion still finds the checkpoint.
 */
class SqliteNodeCheckpointStore implements NodeCheckpointStore {
  constructor(private readonly db: Database) {}

  async save(key: string, snapshot: TurnSnapshot): Promise<void> {
    const s = TurnSnapshotSchema.parse(snapshot);
    statement(this.db, SQL.saveSnapshot).run(key, s.sessionId, toJson(s), s.takenAt);
  }

  async load(key: string): Promise<TurnSnapshot | undefined> {
    const row = statement(this.db, SQL.loadSnapshot).get(key) as { snapshot: string } | undefined;
    return row ? TurnSnapshotSchema.parse(JSON.parse(row.snapshot)) : undefined;
  }

  async delete(key: string): Promise<void> {
    beginDeferred(this.db, false);
    statement(this.db, SQL.deleteSnapshot).run(key);
  }
}
