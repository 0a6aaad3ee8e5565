import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { newSnowflake } from "@/server/graph/ids";
import { type GraphSpec, graphSpecJsonSchema } from "@/server/graph/spec/graph-spec";
import { type CompiledSpec, GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import type { SpecIssue } from "@/server/graph/spec/spec-errors";
import { parseSpecYaml, readSpecYaml, validateSpecYaml } from "@/server/spec/parse-spec-yaml";
import { specYamlContent } from "@/server/spec/spec-content";
import { notFound, toServiceError } from "./errors";
import type { InstanceCounter, InstanceCounts } from "./instance-counts";
import type { SpecRecord, SpecStore } from "./spec-store";

export interface SpecSummary {
  specId: string;
  name: string;
  version: string;
  description: string | null;
  /** Declared nodes (START and END not counted); null when the stored YAML no longer reads. */
  nodeCount: number | null;
  /** Instances of this graph name (latest versions), in `list` only. */
  instances?: InstanceCounts;
  contentHash: string;
  createdAt: number;
}

export interface SpecDetail extends SpecSummary {
  yaml: string;
}

/**
 * Specs as the app uses them: immutable, content-addressed revisions. `save` dedups by content
 * against the latest revision of the same name, so re-saving unchanged YAML creates nothing.
 */
export class SpecService {
  constructor(
    private readonly store: SpecStore,
    private readonly countInstances: InstanceCounter = () => new Map(),
    /** The app's node types (the built-in ones, plus `agent` in the app). */
    private readonly compiler: GraphSpecCompiler = new GraphSpecCompiler(),
  ) {}

  /** JSON Schema of the spec format with this app's node types, for editor completion and hover. */
  jsonSchema(): Record<string, unknown> {
    return graphSpecJsonSchema(this.compiler.registry);
  }

  list(): SpecSummary[] {
    const counts = this.countInstances();
    return this.store.listLatest().map((r) => ({ ...this.summarize(r), instances: counts.get(r.name) ?? { running: 0, total: 0 } }));
  }

  get(ref: string): SpecDetail {
    const record = this.resolve(ref);
    return { ...this.summarize(record), yaml: record.yaml };
  }

  history(name: string): SpecSummary[] {
    const rows = this.store.history(name);
    if (rows.length === 0) throw notFound("spec", name);
    return rows.map((r) => this.summarize(r));
  }

  validate(yaml: string): { ok: boolean; issues: readonly SpecIssue[] } {
    const issues = validateSpecYaml(yaml, this.compiler);
    return { ok: issues.length === 0, issues };
  }

  /** Inserts a new revision unless the latest one of that name has the same content. */
  save(yaml: string): { specId: string; name: string; created: boolean } {
    let content: ReturnType<typeof specYamlContent>;
    try {
      parseSpecYaml(yaml, { compiler: this.compiler }); // compiles: a spec that cannot run is never stored
      content = specYamlContent(yaml, this.compiler);
    } catch (error) {
      throw toServiceError(error);
    }
    const latest = this.store.latest(content.spec.name);
    if (latest && latest.contentHash === content.hash) return { specId: latest.specId, name: latest.name, created: false };
    const record: SpecRecord = {
      specId: newSnowflake(),
      name: content.spec.name,
      version: content.spec.version === undefined ? "" : String(content.spec.version),
      yaml,
      contentHash: content.hash,
      createdAt: Date.now(),
    };
    this.store.insert(record);
    return { specId: record.specId, name: record.name, created: true };
  }

  /** A spec id, or a name (its latest revision). */
  resolve(ref: string): SpecRecord {
    const record = this.store.get(ref) ?? this.store.latest(ref);
    if (!record) throw notFound("spec", ref);
    return record;
  }

  /** Compiles a stored revision, re-binding an instance's frozen node ids when given. */
  compile(record: SpecRecord, nodeIdMap?: Readonly<Record<string, string>>): CompiledSpec {
    try {
      return parseSpecYaml(record.yaml, { nodeIdMap, compiler: this.compiler });
    } catch (error) {
      throw toServiceError(error);
    }
  }

  /** Boot-time loading of `*.yml` / `*.yaml` in a folder; a bad file is reported, never fatal. */
  loadDirectory(dir: string): { loaded: string[]; created: string[]; failed: { file: string; message: string }[] } {
    const out = { loaded: [] as string[], created: [] as string[], failed: [] as { file: string; message: string }[] };
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

  private summarize(record: SpecRecord): SpecSummary {
    return summarize(record, this.readQuietly(record.yaml));
  }

  private readQuietly(yaml: string): GraphSpec | null {
    try {
      return readSpecYaml(yaml, this.compiler);
    } catch {
      return null;
    }
  }
}

function summarize(record: SpecRecord, spec: GraphSpec | null): SpecSummary {
  return {
    specId: record.specId,
    name: record.name,
    version: record.version,
    description: spec?.description ?? null,
    nodeCount: spec ? (Array.isArray(spec.nodes) ? spec.nodes.length : Object.keys(spec.nodes).length) : null,
    contentHash: record.contentHash,
    createdAt: record.createdAt,
  };
}
