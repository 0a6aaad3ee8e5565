import type { Awaitable } from "@/server/graph/awaitable";

/** One immutable revision of a named agent definition. */
export interface AgentRecord {
  /** A Snowflake: a revision id. */
  readonly agentId: string;
  readonly name: string;
  readonly yaml: string;
  /** `sha256:<hex>` of the canonical serialization of the parsed definition. */
  readonly contentHash: string;
  readonly createdAt: number;
}

/**
 * Where definition revisions live; rows are only inserted, "latest" is the newest row of a name.
 * Methods answer with `Awaitable`: in memory and on SQLite at once, on PostgreSQL with promises (a write
 * resolves once committed).
 */
export interface AgentStore {
  /**
   * Inserts `record` unless the latest revision of its name has the same content hash; answers the latest
   * revision after it (`record`, or the one kept). Saves of one name happen one at a time, across
   * processes too, so two saves of the same content create one revision.
   */
  insertIfChanged(record: AgentRecord): Awaitable<AgentRecord>;
  get(agentId: string): Awaitable<AgentRecord | null>;
  latest(name: string): Awaitable<AgentRecord | null>;
  /** The latest revision of every name, by name. */
  listLatest(): Awaitable<AgentRecord[]>;
  /** Every revision of a name, newest first. */
  history(name: string): Awaitable<AgentRecord[]>;
}

export class InMemoryAgentStore implements AgentStore {
  private readonly rows: AgentRecord[] = [];

  insertIfChanged(record: AgentRecord): AgentRecord {
    const latest = this.latest(record.name);
    if (latest && latest.contentHash === record.contentHash) return latest;
    this.rows.push(record);
    return record;
  }
  get(agentId: string): AgentRecord | null {
    return this.rows.find((r) => r.agentId === agentId) ?? null;
  }
  latest(name: string): AgentRecord | null {
    return this.history(name)[0] ?? null;
  }
  listLatest(): AgentRecord[] {
    return [...new Set(this.rows.map((r) => r.name))].sort().map((n) => this.latest(n)!);
  }
  history(name: string): AgentRecord[] {
    return this.rows.filter((r) => r.name === name).reverse();
  }
}
