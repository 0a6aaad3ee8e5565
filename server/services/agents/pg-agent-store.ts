import { fromTimestamp, inTransaction, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { AgentRecord, AgentStore } from "./agent-store";

const COLUMNS = "agent_id, name, yaml, content_hash, created_at";
// Snowflake ids are increasing decimal strings: ordering by (created_at, length, id) is creation order.
const NEWEST_FIRST = "ORDER BY created_at DESC, length(agent_id) DESC, agent_id DESC";

const SQL = {
  // Saves of one name wait for each other (until commit): the check and the insert see every earlier save.
  lockName: `SELECT pg_advisory_xact_lock(hashtextextended('agent_definitions:' || $1, 0))`,
  insert: `INSERT INTO agent_definitions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5)`,
  get: `SELECT ${COLUMNS} FROM agent_definitions WHERE agent_id = $1`,
  history: `SELECT ${COLUMNS} FROM agent_definitions WHERE name = $1 ${NEWEST_FIRST}`,
  latest: `SELECT ${COLUMNS} FROM agent_definitions WHERE name = $1 ${NEWEST_FIRST} LIMIT 1`,
  // By name in byte order, as SQLite's BINARY collation sorts.
  listLatest: `SELECT ${COLUMNS} FROM (SELECT DISTINCT ON (name) ${COLUMNS} FROM agent_definitions
    ORDER BY name, created_at DESC, length(agent_id) DESC, agent_id DESC) AS latest ORDER BY name COLLATE "C"`,
} as const;

interface AgentRow {
  agent_id: string;
  name: string;
  yaml: string;
  content_hash: string;
  created_at: Date;
}

const toRecord = (r: AgentRow): AgentRecord => ({ agentId: r.agent_id, name: r.name, yaml: r.yaml, contentHash: r.content_hash, createdAt: fromTimestamp(r.created_at)! });

/** The agent definition store on PostgreSQL's `agent_definitions`; several processes may save at once. */
export class PgAgentStore implements AgentStore {
  constructor(private readonly db: PgQueryable) {}

  insertIfChanged(r: AgentRecord): Promise<AgentRecord> {
    return inTransaction(this.db, async (client) => {
      await client.query({ text: SQL.lockName, values: [r.name] });
      const { rows } = await client.query<AgentRow>({ text: SQL.latest, values: [r.name] });
      if (rows[0] && rows[0].content_hash === r.contentHash) return toRecord(rows[0]);
      await client.query({ text: SQL.insert, values: [r.agentId, r.name, r.yaml, r.contentHash, toTimestamp(r.createdAt)] });
      return r;
    });
  }

  async get(agentId: string): Promise<AgentRecord | null> {
    const { rows } = await this.db.query<AgentRow>({ text: SQL.get, values: [agentId] });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async latest(name: string): Promise<AgentRecord | null> {
    const { rows } = await this.db.query<AgentRow>({ text: SQL.latest, values: [name] });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async listLatest(): Promise<AgentRecord[]> {
    const { rows } = await this.db.query<AgentRow>({ text: SQL.listLatest });
    return rows.map(toRecord);
  }

  async history(name: string): Promise<AgentRecord[]> {
    const { rows } = await this.db.query<AgentRow>({ text: SQL.history, values: [name] });
    return rows.map(toRecord);
  }
}
