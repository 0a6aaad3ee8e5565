import type { AgentActivity } from "@/server/agent/graph-node/agent-activity";
import { addUsage, ZERO_USAGE, type TokenUsage } from "@/server/agent/llm/token-usage";
import type { SpanRecord } from "@/server/agent/trace/span-record";
import type { Awaitable } from "@/server/graph/awaitable";
import { ServiceError } from "../errors";
import type { EventLog } from "../event-log";
import type { ModelPrices } from "./model-prices";

/** Tokens and what they cost: `cost` adds up the priced calls; `unpriced` names models the table lacks. */
export interface UsageTotals extends TokenUsage {
  /** Model calls. */
  calls: number;
  /** In the table's currency; null when no price table is configured. */
  cost: number | null;
  /** Models used without a price in the table (their calls count in the tokens, not in `cost`). */
  unpriced: string[];
}

export interface ModelUsage extends UsageTotals {
  /** The model name, or "unknown" when the node did not say (a test provider). */
  model: string;
}

/** One agent turn of a node: its tokens, and where its trace is (session and turn of its spans). */
export interface TurnUsage {
  turnId: string;
  invocationId: string;
  version: number;
  inputTokens: number;
  outputTokens: number;
  /** Some of its calls' tokens are an estimate (the provider reported none: a stopped stream). */
  estimated?: true;
  calls: number;
  /** How it ended; null while it runs or waits for an approval. */
  stopReason: string | null;
  /** The trace view's key: spans are kept per session (`<instance>:<node>`) and turn. */
  traceSession: string;
}

export interface NodeUsage extends UsageTotals {
  node: string;
  models: ModelUsage[];
  turns: TurnUsage[];
}

export interface InstanceUsage extends UsageTotals {
  instanceId: string;
  /** The price table's currency; null without one. */
  currency: string | null;
  models: ModelUsage[];
  /** Agent nodes that ran a turn, in the order their first turn started. */
  nodes: NodeUsage[];
}

/** A node's agent spans for one turn (the `agent_spans` rows of session `<instance>:<node>`). */
export type SpanReader = (sessionId: string, turnId: string) => Awaitable<SpanRecord[]>;

interface CallRow {
  version: number;
  node: string;
  invocationId: string;
  turnId: string;
  model: string;
  usage: TokenUsage;
}

interface Folded {
  lastId: number;
  calls: CallRow[];
  /** turnId → how it ended. */
  ended: Map<string, string>;
  /** turnId → the first activity of it seen (its node, invocation and version). */
  turns: Map<string, { node: string; invocationId: string; version: number }>;
}

const PAGE = 1_000;
/** Instances whose fold is kept (the ones people look at); the oldest looked-at is dropped first. */
const CACHED_INSTANCES = 200;
const UNKNOWN_MODEL = "unknown";

/**
 * Token usage of agent nodes in graph runs, per node, per model and per instance, from the instance's
 * event log (each model call's `usage` activity, written in the step's transaction: what the log has
 * is what ran), priced from the model price table. Reads only what was appended since it last looked
 * (the log is append-only), so asking again while a run goes on costs the new events only.
 */
export class AgentUsage {
  private readonly folds = new Map<string, Folded>();

  constructor(
    private readonly deps: {
      events: EventLog;
      prices: ModelPrices;
      spans?: SpanReader;
      /** The app's model (MODEX_LLM_MODEL): the model of calls whose node named none. */
      defaultModel?: string | null;
    },
  ) {}

  /** The instance's agent usage; `version` keeps one version's runs only (default: all). */
  async forInstance(instanceId: string, options: { version?: number } = {}): Promise<InstanceUsage> {
    const fold = await this.fold(instanceId);
    const calls = options.version === undefined ? fold.calls : fold.calls.filter((c) => c.version === options.version);
    const turnIds = [...fold.turns.entries()].filter(([, t]) => options.version === undefined || t.version === options.version);
    // Every node with a turn, in the order its first turn started (one still before its first call too).
    const byNode = new Map<string, CallRow[]>(turnIds.map(([, t]) => [t.node, []]));
    for (const c of calls) byNode.set(c.node, [...(byNode.get(c.node) ?? []), c]);
    const nodes: NodeUsage[] = [...byNode.entries()].map(([node, rows]) => ({
      node,
      ...this.totals(rows),
      models: this.byModel(rows),
      turns: turnIds.filter(([, t]) => t.node === node).map(([turnId, t]) => this.turn(instanceId, turnId, t, rows, fold)),
    }));
    return { instanceId, currency: this.deps.prices.currency, ...this.totals(calls), models: this.byModel(calls), nodes };
  }

  /** One agent turn's spans, for the trace view; the node's session is `<instance>:<node>`. */
  async trace(instanceId: string, node: string, turnId: string): Promise<{ instanceId: string; node: string; turnId: string; title: string; spans: SpanRecord[]; cost: number | null; currency: string | null }> {
    const spans = (await this.deps.spans?.(`${instanceId}:${node}`, turnId)) ?? [];
    return { instanceId, node, turnId, title: `${node} · instance ${instanceId}`, spans, ...this.costOfSpans(spans) };
  }

  /**
   * Throws NOT_FOUND unless agent node `node` of the instance ran turn `turnId` (its event log or its
   * spans say so); `details.missing` says which is missing ("node" or "turn"), so the web trace view
   * tells a stale turn link from one to a run that does not exist. REST and tRPC traces both ask it.
   */
  async requireTurn(instanceId: string, node: string, turnId: string): Promise<void> {
    const turns = [...(await this.fold(instanceId)).turns.entries()];
    if (turns.some(([id, t]) => id === turnId && t.node === node)) return;
    // A turn whose step was rolled back left spans but no activity in the log.
    if (((await this.deps.spans?.(`${instanceId}:${node}`, turnId)) ?? []).length > 0) return;
    if (!turns.some(([, t]) => t.node === node)) throw new ServiceError("NOT_FOUND", `node ${node} of instance ${instanceId} ran no agent turn`, { missing: "node" });
    throw new ServiceError("NOT_FOUND", `turn ${turnId} of node ${node} (instance ${instanceId}) not found`, { missing: "turn" });
  }

  /** What a trace's model calls cost (their `gen_ai.request.model` and usage attributes). */
  costOfSpans(spans: readonly SpanRecord[]): { cost: number | null; currency: string | null } {
    const { prices } = this.deps;
    if (!prices.configured) return { cost: null, currency: null };
    let cost = 0;
    for (const s of spans) {
      const a = s.attributes;
      if (a["gen_ai.operation.name"] !== "chat") continue;
      const usage: TokenUsage = {
        inputTokens: num(a["gen_ai.usage.input_tokens"]),
        outputTokens: num(a["gen_ai.usage.output_tokens"]),
        reasoningTokens: num(a["gen_ai.usage.reasoning_tokens"]),
        cacheReadTokens: num(a["gen_ai.usage.cache_read.input_tokens"]),
        cacheCreationTokens: num(a["gen_ai.usage.cache_creation.input_tokens"]),
      };
      cost += prices.costOf(String(a["gen_ai.request.model"] ?? ""), usage) ?? 0;
    }
    return { cost, currency: prices.currency };
  }

  private turn(instanceId: string, turnId: string, t: { node: string; invocationId: string; version: number }, rows: CallRow[], fold: Folded): TurnUsage {
    const own = rows.filter((r) => r.turnId === turnId);
    const usage = own.reduce((u, r) => addUsage(u, r.usage), ZERO_USAGE);
    return {
      turnId,
      invocationId: t.invocationId,
      version: t.version,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      ...(usage.estimated ? { estimated: true as const } : {}),
      calls: own.length,
      stopReason: fold.ended.get(turnId) ?? null,
      traceSession: `${instanceId}:${t.node}`,
    };
  }

  private totals(rows: readonly CallRow[]): UsageTotals {
    const { prices } = this.deps;
    let usage = ZERO_USAGE;
    let cost: number | null = prices.configured ? 0 : null;
    const unpriced = new Set<string>();
    for (const r of rows) {
      usage = addUsage(usage, r.usage);
      if (cost === null) continue;
      const c = prices.costOf(r.model === UNKNOWN_MODEL ? null : r.model, r.usage);
      if (c === null) unpriced.add(r.model);
      else cost += c;
    }
    return { ...usage, calls: rows.length, cost, unpriced: [...unpriced] };
  }

  private byModel(rows: readonly CallRow[]): ModelUsage[] {
    const groups = new Map<string, CallRow[]>();
    for (const r of rows) groups.set(r.model, [...(groups.get(r.model) ?? []), r]);
    return [...groups.entries()].map(([model, own]) => ({ model, ...this.totals(own) }));
  }

  /** Taken out of the cache while it is extended: two readers at once never apply the same events twice. */
  private async fold(instanceId: string): Promise<Folded> {
    let fold = this.folds.get(instanceId);
    if (fold) this.folds.delete(instanceId); // re-inserted below: most recently used last
    fold ??= { lastId: 0, calls: [], ended: new Map(), turns: new Map() };
    for (;;) {
      const page = await this.deps.events.list(instanceId, { afterId: fold.lastId, limit: PAGE });
      for (const stored of page) {
        fold.lastId = stored.id;
        const e = stored.event;
        if (e.type !== "node_activity") continue;
        const a = e.activity as unknown as AgentActivity;
        if (!a || typeof a !== "object" || typeof a.turnId !== "string") continue;
        if (!fold.turns.has(a.turnId)) fold.turns.set(a.turnId, { node: e.node, invocationId: e.invocationId, version: stored.version });
        if (a.kind === "usage") fold.calls.push({ version: stored.version, node: e.node, invocationId: e.invocationId, turnId: a.turnId, model: a.model ?? this.deps.defaultModel ?? UNKNOWN_MODEL, usage: a.usage });
        else if (a.kind === "turn_ended") fold.ended.set(a.turnId, a.stopReason);
      }
      if (page.length < PAGE) break;
    }
    this.folds.set(instanceId, fold);
    if (this.folds.size > CACHED_INSTANCES) this.folds.delete(this.folds.keys().next().value!);
    return fold;
  }
}

function num(v: unknown): number {
  return typeof v === "number" ? v : 0;
}
