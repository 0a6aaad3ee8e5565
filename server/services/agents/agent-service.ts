import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { newSnowflake } from "@/server/graph/ids";
import { isSpecError, type SpecIssue } from "@/server/graph/spec/spec-errors";
import { canonicalJson } from "@/server/spec/spec-content";
import { notFound, ServiceError } from "../errors";
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

export interface LoadReport {
  loaded: string[];
  created: string[];
  failed: { file: string; message: string }[];
}

/**
 * Named agent definitions as the app uses them: immutable, content-addressed revisions (like specs).
 * `save` dedups by content against the latest revision of the same name, so re-saving an unchanged
 * definition (formatting and comments aside) creates nothing.
 */
export class AgentService {
  /** Parsed revisions by id: a revision never changes, and parsing (YAML + schema) costs ~1.5 ms. */
  private readonly parsed = new Map<string, AgentDefinition>();

  constructor(
    private readonly store: AgentStore,
    readonly catalog: ToolCatalog,
    /** The configured MCP servers, whose state the Agents page shows beside the catalog. */
    private readonly mcp?: { status(): McpServerStatus[] },
  ) {}

  list(): AgentSummary[] {
    return this.store.listLatest().map((r) => this.summarize(r));
  }

  get(ref: string): AgentDetail {
    const record = this.resolveRecord(ref);
    return { ...this.summarize(record), yaml: record.yaml };
  }

  history(name: string): AgentSummary[] {
    const rows = this.store.history(name);
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

  /** saveIfChanged: a new revision unless the latest one of that name has the same content. */
  save(yaml: string, expectedName?: string): { agentId: string; name: string; created: boolean } {
    const definition = this.read(yaml);
    if (expectedName !== undefined && definition.name !== expectedName) {
      throw new ServiceError("BAD_REQUEST", `the definition is named "${definition.name}", not "${expectedName}": rename it in the YAML or save it under its own name`);
    }
    const hash = contentHash(definition);
    const latest = this.store.latest(definition.name);
    if (latest && latest.contentHash === hash) return { agentId: latest.agentId, name: latest.name, created: false };
    const record: AgentRecord = { agentId: newSnowflake(), name: definition.name, yaml, contentHash: hash, createdAt: Date.now() };
    this.store.insert(record);
    return { agentId: record.agentId, name: record.name, created: true };
  }

  /** The latest revision of a name (or a revision by id), parsed. */
  resolve(ref: string): ResolvedAgent {
    const record = this.resolveRecord(ref);
    return { record, definition: this.definitionOf(record) };
  }

  /** The latest revision of `name`, or null when there is none. */
  find(name: string): ResolvedAgent | null {
    const record = this.store.latest(name);
    return record ? { record, definition: this.definitionOf(record) } : null;
  }

  /** Boot-time loading of `*.yml` / `*.yaml` in a folder; a bad file is reported, never fatal. */
  loadDirectory(dir: string): LoadReport {
    const out: LoadReport = { loaded: [], created: [], failed: [] };
    let files: string[];
    try {
      files = readdirSync(/*turbopackIgnore: true*/ dir).filter((f) => /\.ya?ml$/.test(f)).sort();
    } catch {
      return out;
    }
    for (const file of files) {
      try {
        const saved = this.save(readFileSync(/*turbopackIgnore: true*/ path.join(dir, file), "utf8"));
        out.loaded.push(saved.name);
        if (saved.created) out.created.push(saved.name);
      } catch (error) {
        out.failed.push({ file, message: error instanceof Error ? error.message : String(error) });
      }
    }
    return out;
  }

  private resolveRecord(ref: string): AgentRecord {
    const record = this.store.get(ref) ?? this.store.latest(ref);
    if (!record) throw notFound("agent", ref);
    return record;
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
      createdAt: record.createdAt,
    };
  }
}

/** `sha256:<hex>` of the canonical JSON of a validated definition: formatting, comments and spelled-out defaults do not count. */
export function contentHash(definition: AgentDefinition): string {
  return `sha256:${createHash("sha256").update(canonicalJson(definition)).digest("hex")}`;
}
