import { createHash } from "node:crypto";
import { chain, type Awaitable } from "@/server/graph/awaitable";
import { newSnowflake } from "@/server/graph/ids";
import { isSpecError, type SpecIssue } from "@/server/graph/spec/spec-errors";
import { canonicalJson } from "@/server/spec/spec-content";
import { notFound, ServiceError } from "../errors";
import { loadYamlFolder, type LoadReport } from "../yaml-folder";
import { agentDefinitionJsonSchema, type AgentDefinition } from "./agent-definition";
import type { AgentRecord, AgentStore } from "./agent-store";
import { readAgentYaml, validateAgentYaml } from "./agent-yaml";
import type { McpServerStatus } from "@/server/agent/tools/mcp/mcp-connection";
import type { ToolCatalog, ToolCatalogEntry } from "./tool-catalog";

export interface AgentSummary {
  agentId: string;
  name: string;
  /** Its role; null when the stored YAML no longer reads (a tool left the catalog, say). */
  description: string | null;
  model: string | null;
  tools: string[];
  contentHash: string;
  /** Size of the revision's YAML in bytes (UTF-8). */
  bytes: number;
  createdAt: number;
}

export interface AgentDetail extends AgentSummary {
  yaml: string;
}

/** A stored revision with its parsed definition. */
export interface ResolvedAgent {
  record: AgentRecord;
  definition: AgentDefinition;
}

export interface SavedAgent {
  agentId: string;
  name: string;
  created: boolean;
}

/**
 * Named agent definitions as the app uses them: immutable, content-addressed revisions (like specs).
 * `save` dedups by content against the latest revision of the same name, so re-saving an unchanged
 * definition (formatting and comments aside) creates nothing.
 *
 * `find` answers at once (a spec compiles against it, a chat builds its agent from it): the service keeps
 * the latest revision of every name, read from the store when it starts (`ready`), on every `list` and
 * `refresh`, and kept current by its own saves. On SQLite this process is the one writer, so that is the
 * table; on PostgreSQL another process's save is seen from the next `list` or `refresh` (the processes
 * of a cluster refresh on every save's announcement: server/cluster/settings-listener.ts).
 */
export class AgentService {
  /** Parsed revisions by id: a revision never changes, and parsing (YAML + schema) costs ~1.5 ms. */
  private readonly parsed = new Map<string, AgentDefinition>();
  /** The latest revision of every name (see the class comment). */
  private readonly latest = new Map<string, AgentRecord>();
  /** The first read of the latest revisions: at once on a synchronous store. */
  readonly ready: Awaitable<void>;

  constructor(
    private readonly store: AgentStore,
    readonly catalog: ToolCatalog,
    /** The configured MCP servers, whose state the Agents page shows beside the catalog. */
    private readonly mcp?: { status(): McpServerStatus[] },
  ) {
    this.ready = this.refresh();
  }

  /** Reads the latest revision of every name again (another process may have saved some). */
  refresh(): Awaitable<void> {
    return chain(this.store.listLatest(), (rows) => void this.remember(rows));
  }

  async list(): Promise<AgentSummary[]> {
    const rows = await this.store.listLatest();
    this.remember(rows);
    return rows.map((r) => this.summarize(r));
  }

  async get(ref: string): Promise<AgentDetail> {
    const record = await this.resolveRecord(ref);
    return { ...this.summarize(record), yaml: record.yaml };
  }

  /**
   * One revision of the agent `name`, with its YAML: the latest, or the revision `agentId`. Unlike `get`,
   * `name` is only ever a name and a revision of another agent is not found: what REST addresses by name.
   */
  async revisionOf(name: string, agentId?: string): Promise<AgentDetail> {
    const record = agentId === undefined ? await this.store.latest(name) : await this.store.get(agentId);
    if (!record || record.name !== name) throw notFound("agent", agentId === undefined ? name : `${name} revision ${agentId}`);
    return { ...this.summarize(record), yaml: record.yaml };
  }

  async history(name: string): Promise<AgentSummary[]> {
    const rows = await this.store.history(name);
    if (rows.length === 0) throw notFound("agent", name);
    return rows.map((r) => this.summarize(r));
  }

  /** The tool catalog a definition's `tools:` picks from. */
  tools(): ToolCatalogEntry[] {
    return this.catalog.list();
  }

  /** Each configured MCP server (config/mcp) with its state: not started, starting, running, or failed and why. */
  mcpServers(): McpServerStatus[] {
    return this.mcp?.status() ?? [];
  }

  jsonSchema(): Record<string, unknown> {
    return agentDefinitionJsonSchema(this.catalog.names());
  }

  validate(yaml: string): { ok: boolean; issues: readonly SpecIssue[] } {
    const issues = validateAgentYaml(yaml, this.catalog);
    return { ok: issues.length === 0, issues };
  }

  /**
   * saveIfChanged: a new revision unless the latest one of that name has the same content. Answers at
   * once on a synchronous store; an invalid definition throws at once on any.
   */
  save(yaml: string, expectedName?: string): Awaitable<SavedAgent> {
    const definition = this.read(yaml);
    if (expectedName !== undefined && definition.name !== expectedName) {
      throw new ServiceError("BAD_REQUEST", `the definition is named "${definition.name}", not "${expectedName}": rename it in the YAML or save it under its own name`);
    }
    return this.keep(yaml, definition, contentHash(definition));
  }

  /** The insert of `save`, for a definition already read. */
  private keep(yaml: string, definition: AgentDefinition, hash: string): Awaitable<SavedAgent> {
    const record: AgentRecord = { agentId: newSnowflake(), name: definition.name, yaml, contentHash: hash, createdAt: Date.now() };
    return chain(this.store.insertIfChanged(record), (latest) => {
      this.latest.set(latest.name, latest);
      return { agentId: latest.agentId, name: latest.name, created: latest.agentId === record.agentId };
    });
  }

  /**
   * A folder file's save at start-up: none when its content is already one of its name's revisions, so
   * a revision saved since (on the Agents page, over the API) stays the latest through a restart; a file
   * whose content is new (the file was changed) is saved as the latest. The name's latest revision, read
   * here, is remembered: another process may have saved it after this one's first read (processes of a
   * cluster start together), and specs that name it compile against `find`.
   */
  private saveFromFolder(yaml: string): Awaitable<SavedAgent> {
    const definition = this.read(yaml);
    const hash = contentHash(definition);
    return chain(this.store.history(definition.name), (revisions) => {
      this.remember(revisions.slice(0, 1));
      const known = revisions.find((r) => r.contentHash === hash);
      return known ? { agentId: known.agentId, name: known.name, created: false } : this.keep(yaml, definition, hash);
    });
  }

  /** The latest revision of a name (or a revision by id), parsed. */
  async resolve(ref: string): Promise<ResolvedAgent> {
    const record = await this.resolveRecord(ref);
    return { record, definition: this.definitionOf(record) };
  }

  /** The latest revision of `name`, or null when there is none (at once: see the class comment). */
  find(name: string): ResolvedAgent | null {
    const record = this.latest.get(name);
    return record ? { record, definition: this.definitionOf(record) } : null;
  }

  /**
   * Boot-time loading of `*.yml` / `*.yaml` in a folder, in name order; a bad file is reported, never
   * fatal. At once on a synchronous store.
   */
  loadDirectory(dir: string): Awaitable<LoadReport> {
    return loadYamlFolder(dir, (yaml) => this.saveFromFolder(yaml));
  }

  private async resolveRecord(ref: string): Promise<AgentRecord> {
    const record = (await this.store.get(ref)) ?? (await this.store.latest(ref));
    if (!record) throw notFound("agent", ref);
    return record;
  }

  /** Merges what the store answered (revisions are never deleted; a save made meanwhile may be newer). */
  private remember(rows: readonly AgentRecord[]): void {
    for (const r of rows) {
      const known = this.latest.get(r.name);
      if (!known || newer(r, known)) this.latest.set(r.name, r);
    }
  }

  private definitionOf(record: AgentRecord): AgentDefinition {
    let definition = this.parsed.get(record.agentId);
    if (!definition) {
      definition = this.read(record.yaml);
      this.parsed.set(record.agentId, definition);
    }
    return definition;
  }

  private read(yaml: string): AgentDefinition {
    try {
      return readAgentYaml(yaml, this.catalog);
    } catch (error) {
      if (!isSpecError(error)) throw error;
      const message = `invalid agent definition: ${error.message.replace(/^invalid graph spec: /, "")}`;
      throw new ServiceError("INVALID_SPEC", message, { issues: error.issues });
    }
  }

  private summarize(record: AgentRecord): AgentSummary {
    let definition: AgentDefinition | null = null;
    try {
      definition = this.definitionOf(record);
    } catch {
      // listed with what the row holds; `get` and runs report the problem
    }
    return {
      agentId: record.agentId,
      name: record.name,
      description: definition?.description ?? null,
      model: definition?.model ?? null,
      tools: definition?.tools ?? [],
      contentHash: record.contentHash,
      bytes: Buffer.byteLength(record.yaml),
      createdAt: record.createdAt,
    };
  }
}

/** Creation order of revisions: by time, then by Snowflake id (increasing decimal strings). */
function newer(a: AgentRecord, b: AgentRecord): boolean {
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
  return a.agentId.length !== b.agentId.length ? a.agentId.length > b.agentId.length : a.agentId >= b.agentId;
}

/** `sha256:<hex>` of the canonical JSON of a validated definition: formatting, comments and spelled-out defaults do not count. */
export function contentHash(definition: AgentDefinition): string {
  return `sha256:${createHash("sha256").update(canonicalJson(definition)).digest("hex")}`;
}
