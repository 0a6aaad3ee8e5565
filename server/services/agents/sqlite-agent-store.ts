import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import { commitDeferred } from "@/server/db/deferred-transaction";
import type { AgentRecord, AgentStore } from "./agent-store";

const COLUMNS = "agent_id, name, yaml, content_hash, created_at";
// Snowflake ids are increasing decimal strings: ordering by (created_at, length, id) is creation order.
const NEWEST_FIRST = "ORDER BY created_at DESC, length(agent_id) DESC, agent_id DESC";

const SQL = {
  insert: `INSERT INTO agent_definitions (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
  get: `SELECT ${COLUMNS} FROM agent_definitions WHERE agent_id = ?`,
  history: `SELECT ${COLUMNS} FROM agent_definitions WHERE name = ? ${NEWEST_FIRST}`,
  latest: `SELECT ${COLUMNS} FROM agent_definitions WHERE name = ? ${NEWEST_FIRST} LIMIT 1`,
  names: `SELECT DISTINCT name FROM agent_definitions ORDER BY name`,
} as const;

interface AgentRow {
  agent_id: string;
  name: string;
  yaml: string;
  content_hash: string;
  created_at: number;
}

const toRecord = (r: AgentRow): AgentRecord => ({ agentId: r.agent_id, name: r.name, yaml: r.yaml, contentHash: r.content_hash, createdAt: Number(r.created_at) });

/** The agent definition store on the `agent_definitions` table. */
export class SqliteAgentStore implements AgentStore {
  constructor(private readonly db: Database) {}

  /** Check and insert in one synchronous call: nothing else writes in between (one connection, one thread). */
  insertIfChanged(r: AgentRecord): AgentRecord {
    const latest = this.latest(r.name);
    if (latest && latest.contentHash === r.contentHash) return latest;
    commitDeferred(this.db); // never ride along in a run's deferred steps (graph-database.ts)
    statement(this.db, SQL.insert).run(r.agentId, r.name, r.yaml, r.contentHash, r.createdAt);
    return r;
  }
  get(agentId: string): AgentRecord | null {
    const row = statement(this.db, SQL.get).get(agentId) as AgentRow | undefined;
    return row ? toRecord(row) : null;
  }
  latest(name: string): AgentRecord | null {
    const row = statement(this.db, SQL.latest).get(name) as AgentRow | undefined;
    return row ? toRecord(row) : null;
  }
  listLatest(): AgentRecord[] {
    return (statement(this.db, SQL.names).all() as { name: string }[]).map((n) => this.latest(n.name)!);
  }
  history(name: string): AgentRecord[] {
    return (statement(this.db, SQL.history).all(name) as AgentRow[]).map(toRecord);
  }
}
