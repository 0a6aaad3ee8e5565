import { chain, type Awaitable } from "@/server/graph/awaitable";
import { newSnowflake } from "@/server/graph/ids";
import { type GraphSpec, graphSpecJsonSchema } from "@/server/graph/spec/graph-spec";
import { type CompiledSpec, GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import type { SpecIssue } from "@/server/graph/spec/spec-errors";
import { parseSpecYaml, readSpecYaml, validateSpecYaml } from "@/server/spec/parse-spec-yaml";
import { specContentHash } from "@/server/spec/spec-content";
import { CompiledSpecCache } from "./compiled-spec-cache";
import { notFound, ServiceError, toServiceError } from "./errors";
import { loadYamlFolder, type LoadReport } from "./yaml-folder";
import { describeNodeTypes } from "./node-type-catalog";
import type { NodeTypeInfo } from "@/shared/graph-node-types";
import { NOT_YAML, YamlParseWorker } from "./yaml-parse-worker";
import type { InstanceCounter, InstanceCounts } from "./instance-counts";
import type { SpecHead, SpecListingFields, SpecRecord, SpecStore } from "./spec-store";

export interface SpecSummary {
  specId: string;
  name: string;
  version: string;
  description: string | null;
  /** Declared nodes (START and END not counted); null when the stored YAML did not read. */
  nodeCount: number | null;
  /** Instances of this graph name (latest versions), in `list` only. */
  instances?: InstanceCounts;
  /** How many revisions the name has (each save that changed the YAML is one), in `list` only. */
  revisions?: number;
  contentHash: string;
  createdAt: number;
}

export interface SaveResult {
  specId: string;
  name: string;
  created: boolean;
}

/** Texts this long (~1,000 nodes and more) are read on a worker thread when the API saves or validates them. */
export const OFF_THREAD_MIN_CHARS = 128 * 1024;

export interface SpecDetail extends SpecSummary {
  yaml: string;
}

/**
 * Specs as the app uses them: immutable, content-addressed revisions. `save` dedups by content
 * against the latest revision of the same name, so re-saving unchanged YAML creates nothing.
 * A request never parses a stored spec more than once: what lists show is kept with the row at save
 * time, and compiled revisions are cached by spec id (bounded) for the runs that need them.
 */
export class SpecService {
  private readonly compiled = new CompiledSpecCache();
  private readonly parser = new YamlParseWorker();
  private schema: Record<string, unknown> | undefined;
  private types: NodeTypeInfo[] | undefined;

  constructor(
    private readonly store: SpecStore,
    private readonly countInstances: InstanceCounter = () => new Map(),
    /** The app's node types (the built-in ones, plus `agent` in the app). */
    private readonly compiler: GraphSpecCompiler = new GraphSpecCompiler(),
    /**
     * What else starts runs of a spec, named by its name or one of its revision ids (the app's webhooks
     * and its own schedules, e.g. "webhook deploy"): a spec they name is not deleted from under them.
     */
    private readonly startersOf: (refs: ReadonlySet<string>) => Promise<string[]> = async () => [],
  ) {}

  /**
   * JSON Schema of the spec format with this app's node types, for editor completion and hover. Built
   * once (7-40 ms each time): the registry does not change while the service lives.
   */
  jsonSchema(): Record<string, unknown> {
    this.schema ??= graphSpecJsonSchema(this.compiler.registry);
    return this.schema;
  }

  /** The node types specs may use (built-ins and the app's `agent`), each with its config's fields; built once, as `jsonSchema`. */
  nodeTypes(): NodeTypeInfo[] {
    this.types ??= describeNodeTypes(this.compiler.registry);
    return this.types;
  }

  /**
   * Reads no YAML (but a row's saved before the listing was kept, once). Archived names are left out
   * unless `archived` asks for them ("only" or "include"); each row says whether it is archived.
   */
  async list(options: { archived?: "exclude" | "only" | "include" } = {}): Promise<(SpecSummary & { archived: boolean })[]> {
    const [counts, hidden, heads] = await Promise.all([this.countInstances(), this.store.archivedNames(), this.store.listLatest()]);
    const mode = options.archived ?? "exclude";
    const shown = heads.filter((r) => mode === "include" || (mode === "only") === hidden.has(r.name));
    const out: (SpecSummary & { archived: boolean })[] = [];
    for (const r of shown) out.push({ ...(await this.summarize(r)), instances: counts.get(r.name) ?? { running: 0, total: 0 }, revisions: r.revisions, archived: hidden.has(r.name) });
    return out;
  }

  /** Hides a spec name from the list (`archived: false` brings it back); its runs and revisions stay. */
  async archive(name: string, archived = true): Promise<{ name: string; archived: boolean }> {
    if (!(await this.store.latestHead(name))) throw notFound("spec", name);
    await this.store.setArchived(name, archived, Date.now());
    return { name, archived };
  }

  /**
   * Deletes every revision of a spec name. Refused (INVALID_STATE, 409) while any instance of it exists,
   * so that no run loses the graph its page draws: delete (or keep and archive) them first. A spec from
   * the specs folder is saved again at the next start unless its file goes too.
   */
  async delete(name: string): Promise<{ name: string; deleted: number }> {
    if (!(await this.store.latestHead(name))) throw notFound("spec", name);
    const runs = (await this.countInstances()).get(name);
    if (runs && runs.total > 0) {
      const running = runs.running > 0 ? ` (${runs.running} running)` : "";
      throw new ServiceError("INVALID_STATE", `spec ${name} has ${runs.total} instance${runs.total === 1 ? "" : "s"}${running}: delete them first, or archive the spec to hide it`);
    }
    // Else each of their calls or fires would fail with "spec not found" (a webhook's sender would be
    // told 404, as for a hook that does not exist). Schedules the spec declares go with it.
    const starters = await this.startersOf(new Set([name, ...(await this.store.history(name)).map((r) => r.specId)]));
    if (starters.length > 0) {
      throw new ServiceError("INVALID_STATE", `spec ${name} starts runs from ${starters.join(", ")}: delete ${starters.length === 1 ? "it" : "them"} first, or archive the spec to hide it`);
    }
    return { name, deleted: await this.store.deleteName(name) };
  }

  async get(ref: string): Promise<SpecDetail> {
    const record = (await this.store.get(ref)) ?? (await this.store.latest(ref));
    if (!record) throw notFound("spec", ref);
    return { ...(await this.summarize(record, record.yaml)), yaml: record.yaml };
  }

  /**
   * One revision of the spec `name`, with its YAML: the latest, or the revision `specId`. Unlike `get`,
   * `name` is only ever a name and a revision of another spec is not found: what REST addresses by name.
   */
  async revisionOf(name: string, specId?: string): Promise<SpecDetail> {
    const record = specId === undefined ? await this.store.latest(name) : await this.store.get(specId);
    if (!record || record.name !== name) throw notFound("spec", specId === undefined ? name : `${name} revision ${specId}`);
    return { ...(await this.summarize(record, record.yaml)), yaml: record.yaml };
  }

  async history(name: string): Promise<SpecSummary[]> {
    const rows = await this.store.history(name);
    if (rows.length === 0) throw notFound("spec", name);
    const out: SpecSummary[] = [];
    for (const r of rows) out.push(await this.summarize(r));
    return out;
  }

  validate(yaml: string): { ok: boolean; issues: readonly SpecIssue[] } {
    const issues = validateSpecYaml(yaml, this.compiler);
    return { ok: issues.length === 0, issues };
  }

  /** `validate`, reading a large text on a worker thread (see `compileOffThread`). */
  async validateAsync(yaml: string): Promise<{ ok: boolean; issues: readonly SpecIssue[] }> {
    if (yaml.length >= OFF_THREAD_MIN_CHARS && (await this.compileOffThread(yaml)) !== null) return { ok: true, issues: [] };
    return this.validate(yaml);
  }

  /**
   * Inserts a new revision unless the latest one of that name has the same content. The YAML is
   * parsed once: the compiled spec gives the content hash and the listing, and is cached for runs.
   */
  save(yaml: string): Awaitable<SaveResult> {
    return this.keep(yaml, this.compileHere(yaml));
  }

  /**
   * `save`, reading a large text on a worker thread: what the API calls. What is left on this thread
   * (compile, hash, insert: each ~0.05–0.2 s for a 20,000-node spec) runs in steps with other work
   * between them, so a request that comes meanwhile (a health check) waits for one step, not all.
   */
  async saveAsync(yaml: string): Promise<SaveResult> {
    const compiled = yaml.length >= OFF_THREAD_MIN_CHARS ? await this.compileOffThread(yaml) : null;
    if (!compiled) return this.keep(yaml, this.compileHere(yaml));
    await otherWorkFirst();
    const record = recordOf(yaml, compiled.spec);
    await otherWorkFirst();
    return this.stored(record, compiled);
  }

  private keep(yaml: string, compiled: CompiledSpec): Awaitable<SaveResult> {
    return this.stored(recordOf(yaml, compiled.spec), compiled);
  }

  private stored(record: SpecRecord, compiled: CompiledSpec): Awaitable<SaveResult> {
    // The store compares with the latest revision and inserts atomically (several processes may save).
    return chain(this.store.saveIfChanged(record), ({ head, created }) => {
      if (created) this.compiled.set(head.specId, compiled);
      return { specId: head.specId, name: head.name, created };
    });
  }

  /**
   * A folder file's save at start-up: none when its content is already one of its name's revisions, so
   * a revision saved since (in the editor, over the API) stays the latest through a restart; a file
   * whose content is new (the file was changed) is saved as the latest.
   */
  private saveFromFolder(yaml: string): Awaitable<SaveResult> {
    const compiled = this.compileHere(yaml);
    const contentHash = specContentHash(compiled.spec);
    return chain(this.store.history(compiled.spec.name), (revisions) => {
      const known = revisions.find((r) => r.contentHash === contentHash);
      return known ? { specId: known.specId, name: known.name, created: false } : this.keep(yaml, compiled);
    });
  }

  /** Parses and compiles on this thread; a spec that cannot run throws its located issues. */
  private compileHere(yaml: string): CompiledSpec {
    try {
      return parseSpecYaml(yaml, { compiler: this.compiler });
    } catch (error) {
      throw toServiceError(error);
    }
  }

  /**
   * Reads the YAML on a worker thread (~0.15 s of js-yaml for a 20,000-node spec, over 1 s of `yaml` for
   * text readPlainYaml leaves to it), then compiles
   * it here. Null when it does not compile or no worker could read it: locating the problems needs the
   * YAML document, so the caller parses the text here after all (a spec that compiles never is).
   */
  private async compileOffThread(yaml: string): Promise<CompiledSpec | null> {
    let data: unknown;
    try {
      data = await this.parser.parse(yaml);
    } catch (error) {
      console.warn(`[modex] reading YAML on a worker failed, reading it here: ${(error as Error).message}`);
      return null;
    }
    if (data === NOT_YAML) return null;
    try {
      await otherWorkFirst(); // after reading the worker's answer (~0.05 s for a 20,000-node spec)
      const spec = this.compiler.parse(data);
      await otherWorkFirst();
      return { spec, graph: this.compiler.compileParsed(spec) };
    } catch {
      return null;
    }
  }

  /** A spec id, or a name (its latest revision); without its YAML, which `compile` reads if it must. */
  resolve(ref: string): Awaitable<SpecHead> {
    // Spec ids are decimal Snowflakes and names rarely are: look where a match is likely first (one
    // query per create instead of two). Synchronous on a synchronous store: no microtask on a create.
    const [first, second] = SNOWFLAKE.test(ref) ? (["head", "latestHead"] as const) : (["latestHead", "head"] as const);
    return chain(this.store[first](ref), (head) =>
      head ? head : chain(this.store[second](ref), (other) => {
        if (!other) throw notFound("spec", ref);
        return other;
      }),
    );
  }

  /**
   * Compiles a stored revision, re-binding an instance's frozen node ids when given. Served from the
   * cache of compiled revisions: instances created from one share its node ids, so theirs match at
   * once; another instance's (created before, or by another process) are re-bound, as compiling with
   * them would (CompiledGraph.withNodeIds).
   */
  compile(head: SpecHead, nodeIdMap?: Readonly<Record<string, string>>): Awaitable<CompiledSpec> {
    const cached = this.compiled.get(head.specId);
    if (cached) return rebound(cached, nodeIdMap);
    const yaml = "yaml" in head && typeof head.yaml === "string" ? head.yaml : chain(this.store.get(head.specId), (r) => r?.yaml);
    return chain(yaml, (text) => rebound(this.compileStored(head.specId, text), nodeIdMap));
  }

  /** Resolves a spec reference and compiles it: synchronous on a synchronous store with a cached revision. */
  resolveCompiled(ref: string, nodeIdMap?: Readonly<Record<string, string>>): Awaitable<{ head: SpecHead; compiled: CompiledSpec }> {
    return chain(this.resolve(ref), (head) => chain(this.compile(head, nodeIdMap), (compiled) => ({ head, compiled })));
  }

  private compileStored(specId: string, yaml: string | undefined): CompiledSpec {
    // Another caller may have compiled it while the YAML was read.
    const cached = this.compiled.get(specId);
    if (cached) return cached;
    if (yaml === undefined) throw notFound("spec", specId);
    let compiled: CompiledSpec;
    try {
      compiled = parseSpecYaml(yaml, { compiler: this.compiler });
    } catch (error) {
      throw toServiceError(error);
    }
    this.compiled.set(specId, compiled);
    return compiled;
  }

  /**
   * Boot-time loading of `*.yml` / `*.yaml` in a folder; a bad file is reported, never fatal. Done when
   * it returns on a synchronous store (tests build their services without awaiting).
   */
  loadDirectory(dir: string): Awaitable<LoadReport> {
    return loadYamlFolder(dir, (yaml) => this.saveFromFolder(yaml));
  }

  /** `yaml`: the row's, when the caller already read it (a row without a listing needs it). */
  private async summarize(head: SpecHead, yaml?: string): Promise<SpecSummary> {
    const listing = head.listing ?? (await this.fillListing(head, yaml));
    return {
      specId: head.specId,
      name: head.name,
      version: head.version,
      description: listing.description,
      nodeCount: listing.nodeCount,
      contentHash: head.contentHash,
      createdAt: head.createdAt,
    };
  }

  /** A row saved before listings were kept: read its YAML this once and keep what the list shows. */
  private async fillListing(head: SpecHead, known?: string): Promise<SpecListingFields> {
    const yaml = known ?? (await this.store.get(head.specId))?.yaml;
    let listing: SpecListingFields = { description: null, nodeCount: null };
    try {
      if (yaml !== undefined) listing = listingOf(readSpecYaml(yaml, this.compiler));
    } catch {
      // A spec that no longer reads (e.g. a node type since removed) is listed without them.
    }
    await this.store.setListing(head.specId, listing);
    return listing;
  }
}

const SNOWFLAKE = /^\d+$/;

/** A new revision of `spec`, content-hashed (~0.05–0.1 s for a 20,000-node spec). */
function recordOf(yaml: string, spec: GraphSpec): SpecRecord {
  return {
    specId: newSnowflake(),
    name: spec.name,
    version: spec.version === undefined ? "" : String(spec.version),
    yaml,
    contentHash: specContentHash(spec),
    createdAt: Date.now(),
    listing: listingOf(spec),
  };
}

/** Resolves after the event loop's next turn: requests waiting on I/O run first. */
function otherWorkFirst(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function listingOf(spec: GraphSpec): SpecListingFields {
  return {
    description: spec.description ?? null,
    nodeCount: Array.isArray(spec.nodes) ? spec.nodes.length : Object.keys(spec.nodes).length,
  };
}

/** The compiled revision with an instance's frozen node ids, when it has its own. */
function rebound(compiled: CompiledSpec, nodeIdMap?: Readonly<Record<string, string>>): CompiledSpec {
  if (!nodeIdMap || sameNodeIds(compiled.graph.nodeIdMap, nodeIdMap)) return compiled;
  return { spec: compiled.spec, graph: compiled.graph.withNodeIds(nodeIdMap) };
}

function sameNodeIds(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}
