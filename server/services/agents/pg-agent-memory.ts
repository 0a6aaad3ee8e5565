import type { ApprovalStore } from "@/server/agent/approval/approval-store";
import { ApprovalTransactionSchema, type ApprovalTransaction } from "@/server/agent/approval/approval-types";
import { TurnSnapshotSchema, type TurnSnapshot, type TurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import type { ChatMessage } from "@/server/agent/llm/messages";
import { parseSummary, type ContextSummary, type ContextSummaryStore } from "@/server/agent/memory/context-summary";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import type { NodeCheckpointStore } from "@/server/agent/graph-node/node-checkpoints";
import { toJson, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import { sessionParts } from "./sqlite-agent-memory";

const SQL = {
  loadMemory: `SELECT messages FROM agent_node_memory WHERE session_id = $1`,
  saveMemory: `INSERT INTO agent_node_memory (session_id, instance_id, node, messages, updated_at) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (session_id) DO UPDATE SET messages = excluded.messages, updated_at = excluded.updated_at`,
  loadSummary: `SELECT summary FROM agent_node_memory WHERE session_id = $1`,
  // A summary may come before the node's first messages are saved (a first turn over budget): they follow.
  saveSummary: `INSERT INTO agent_node_memory (session_id, instance_id, node, messages, summary, updated_at) VALUES ($1, $2, $3, '[]', $4, $5)
    ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary`,
  saveApproval: `INSERT INTO agent_approvals (id, session_id, turn_id, status, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (id) DO UPDATE SET status = excluded.status, payload = excluded.payload`,
  getApproval: `SELECT payload FROM agent_approvals WHERE id = $1`,
  pendingApprovals: `SELECT payload FROM agent_approvals WHERE session_id = $1 AND status = 'pending' ORDER BY created_at, id`,
  saveSnapshot: `INSERT INTO agent_turn_snapshots (turn_id, session_id, snapshot, taken_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (turn_id) DO UPDATE SET snapshot = excluded.snapshot, taken_at = excluded.taken_at`,
  loadSnapshot: `SELECT snapshot FROM agent_turn_snapshots WHERE turn_id = $1`,
  deleteSnapshot: `DELETE FROM agent_turn_snapshots WHERE turn_id = $1`,
} as const;

/**
 * What an agent node keeps between its invocations and across a restart, on PostgreSQL: its conversation
 * (session `<instance>:<node>`) with its memory-cleanup summary, the approval a turn waits on, and the frozen turn. Each write is
 * committed when its promise resolves (SQLite's version joins the run's deferred step transaction
 * instead: there is no such transaction to join across connections).
 */
export class PgAgentMemory implements SessionMemory, ContextSummaryStore {
  readonly approvals: ApprovalStore;
  readonly snapshots: TurnSnapshotStore;
  readonly checkpoints: NodeCheckpointStore;

  constructor(private readonly db: PgQueryable) {
    this.approvals = new PgApprovalStore(db);
    this.snapshots = new PgTurnSnapshotStore(db);
    this.checkpoints = new PgNodeCheckpointStore(db);
  }

  async load(sessionId: string): Promise<ChatMessage[]> {
    const { rows } = await this.db.query<{ messages: ChatMessage[] }>({ text: SQL.loadMemory, values: [sessionId] });
    return rows[0]?.messages ?? [];
  }

  async save(sessionId: string, messages: readonly ChatMessage[]): Promise<void> {
    const { instanceId, node } = sessionParts(sessionId);
    await this.db.query({ text: SQL.saveMemory, values: [sessionId, instanceId, node, toJson(messages), toTimestamp(Date.now())] });
  }

  async loadSummary(sessionId: string): Promise<ContextSummary | null> {
    const { rows } = await this.db.query<{ summary: unknown }>({ text: SQL.loadSummary, values: [sessionId] });
    return rows[0]?.summary ? parseSummary(rows[0].summary) : null;
  }

  async saveSummary(sessionId: string, summary: ContextSummary): Promise<void> {
    const { instanceId, node } = sessionParts(sessionId);
    await this.db.query({ text: SQL.saveSummary, values: [sessionId, instanceId, node, toJson(summary), toTimestamp(Date.now())] });
  }
}

class PgApprovalStore implements ApprovalStore {
  constructor(private readonly db: PgQueryable) {}

  async save(transaction: ApprovalTransaction): Promise<void> {
    const t = ApprovalTransactionSchema.parse(transaction);
    await this.db.query({ text: SQL.saveApproval, values: [t.id, t.sessionId, t.turnId, t.status, toJson(t), toTimestamp(t.createdAt)] });
  }

  async get(id: string): Promise<ApprovalTransaction | undefined> {
    const { rows } = await this.db.query<{ payload: unknown }>({ text: SQL.getApproval, values: [id] });
    return rows[0] ? ApprovalTransactionSchema.parse(rows[0].payload) : undefined;
  }

  async pending(sessionId: string): Promise<ApprovalTransaction[]> {
    const { rows } = await this.db.query<{ payload: unknown }>({ text: SQL.pendingApprovals, values: [sessionId] });
    return rows.map((r) => ApprovalTransactionSchema.parse(r.payload));
  }
}

class PgTurnSnapshotStore implements TurnSnapshotStore {
  constructor(private readonly db: PgQueryable) {}

  async save(snapshot: TurnSnapshot): Promise<void> {
    const s = TurnSnapshotSchema.parse(snapshot);
    await this.db.query({ text: SQL.saveSnapshot, values: [s.turnId, s.sessionId, toJson(s), toTimestamp(s.takenAt)] });
  }

  async load(turnId: string): Promise<TurnSnapshot | undefined> {
    const { rows } = await this.db.query<{ snapshot: unknown }>({ text: SQL.loadSnapshot, values: [turnId] });
    return rows[0] ? TurnSnapshotSchema.parse(rows[0].snapshot) : undefined;
  }
}

/**
 * A running node turn's iteration checkpoint, in agent_turn_snapshots under its invocation's key (the
 * session column is the node's, so the run's deletion takes it); committed before the turn's next
 * model call, so the worker that recovers the run finds it.
 */
class PgNodeCheckpointStore implements NodeCheckpointStore {
  constructor(private readonly db: PgQueryable) {}

  async save(key: string, snapshot: TurnSnapshot): Promise<void> {
    const s = TurnSnapshotSchema.parse(snapshot);
    await this.db.query({ text: SQL.saveSnapshot, values: [key, s.sessionId, toJson(s), toTimestamp(s.takenAt)] });
  }

  async load(key: string): Promise<TurnSnapshot | undefined> {
    const { rows } = await this.db.query<{ snapshot: unknown }>({ text: SQL.loadSnapshot, values: [key] });
    return rows[0] ? TurnSnapshotSchema.parse(rows[0].snapshot) : undefined;
  }

  async delete(key: string): Promise<void> {
    await this.db.query({ text: SQL.deleteSnapshot, values: [key] });
  }
}
