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

/** Where definition revisions live; rows are only inserted, "latest" is the newest row of a name. */
export interface AgentStore {
  insert(record: AgentRecord): void;
  get(agentId: string): AgentRecord | null;
  latest(name: string): AgentRecord | null;
  /** The latest revision of every name, by name. */
  listLatest(): AgentRecord[];
  /** Every revision of a name, newest first. */
  history(name: string): AgentRecord[];
}

export class InMemoryAgentStore implements AgentStore {
  private readonly rows: AgentRecord[] = [];

  insert(record: AgentRecord): void {
    this.rows.push(record);
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
