import type { ChatMessage } from "@/server/agent/llm/messages";
import { GenAI, Modex, Training } from "@/server/agent/trace/genai-attributes";
import type { SpanRecord, TurnCursor, TurnFilter, TurnRootIndex } from "@/server/agent/trace/span-record";
import { trainingExample } from "./training-example";

/** Where a turn ran: a chat (with its title), or an agent node of a graph run. */
export type TurnSource =
  | { kind: "chat"; sessionId: string; title: string | null }
  | { kind: "node"; instanceId: string; node: string; graph: string | null };

/** One finished agent turn, as the Traces list shows it; its trace is its session's spans of `turnId`. */
export interface TurnTraceSummary {
  turnId: string;
  /** The turn's root span (the one a training-data choice is kept on). */
  spanId: string;
  source: TurnSource;
  agent: string;
  startedAt: number;
  durationMs: number;
  /** "error" when the turn failed (its error is `error`). */
  status: "ok" | "error" | "unset";
  /** How it ended (completed, cancelled, max_iterations, …); null when the span does not say. */
  stopReason: string | null;
  error: string | null;
  inputTokens: number;
  outputTokens: number;
  /** In the training-data export: the training_data hook's tag, or a person's choice (`trainingChosen`). */
  training: boolean;
  trainingChosen: boolean;
}

/** A turn's training-data state, as its trace page shows and changes it. */
export interface TurnTraining {
  spanId: string;
  training: boolean;
  trainingChosen: boolean;
}

export interface TurnPage {
  turns: TurnTraceSummary[];
  /** Pass as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export interface TurnTracesDeps {
  /** None: spans are not kept (in-memory stores), and the list is empty. */
  index?: TurnRootIndex;
  /** A chat's title, or null when the chat is gone. */
  chatTitle(sessionId: string): Promise<string | null>;
  /** An instance's graph name, or null when the instance is gone. */
  graphOf(instanceId: string): Promise<string | null>;
  /** A session's stored conversation (a chat's, or an agent node's `<instance>:<node>`): the export reads turns from it. */
  conversation?(sessionId: string): Promise<readonly ChatMessage[]>;
}

/** Turns read per page while exporting (the index's own limit of one listing). */
const EXPORT_PAGE = 200;

/** A node's session is `<instance>:<node>`; a chat's id has no colon. */
const NODE_SESSION = /^([^:]+):(.+)$/;

/** The newest finished agent turns of the whole app (chats and graph runs), a page at a time. */
export class TurnTraces {
  constructor(private readonly deps: TurnTracesDeps) {}

  async recent(args: { cursor?: string | null; limit: number; filter: TurnFilter }): Promise<TurnPage> {
    if (!this.deps.index) return { turns: [], nextCursor: null };
    const roots = await this.deps.index.turnRoots(decodeCursor(args.cursor), args.limit + 1, args.filter);
    const page = roots.slice(0, args.limit);
    const names = await this.namesOf(page);
    const last = page.at(-1);
    return {
      turns: page.map((root) => summaryOf(root, names)),
      nextCursor: roots.length > args.limit && last ? encodeCursor({ startTime: last.startTime, spanId: last.spanId }) : null,
    };
  }

  /** A person's choice: the turn whose root span is `spanId` is in the training data, or not. Null: no such turn. */
  async chooseTraining(spanId: string, included: boolean): Promise<TurnTraining | null> {
    const root = await this.deps.index?.chooseTraining(spanId, included);
    return root ? trainingOf(root) : null;
  }

  /**
   * The training-data export: one JSON line (OpenAI chat fine-tuning shape) per turn marked relevant, newest
   * first, of `source`, started at or after `since` (epoch ms). Turns whose conversation is gone are skipped.
   */
  async *trainingLines(args: { source: TurnFilter["source"]; since?: number | null }): AsyncGenerator<string> {
    const index = this.deps.index;
    const conversation = this.deps.conversation;
    if (!index || !conversation) return;
    const filter: TurnFilter = { source: args.source, errorsOnly: false, trainingOnly: true };
    const loaded = new Map<string, Promise<readonly ChatMessage[]>>();
    let after: TurnCursor | null = null;
    for (;;) {
      const roots = await index.turnRoots(after, EXPORT_PAGE, filter);
      for (const root of roots) {
        if (args.since != null && root.startTime < args.since) return;
        if (!loaded.has(root.sessionId)) loaded.set(root.sessionId, conversation(root.sessionId).catch(() => []));
        const example = trainingExample(root, await loaded.get(root.sessionId)!);
        if (example) yield `${JSON.stringify(example)}\n`;
      }
      const last = roots.at(-1);
      if (roots.length < EXPORT_PAGE || !last) return;
      after = { startTime: last.startTime, spanId: last.spanId };
    }
  }

  /** Each chat's title and instance's graph on the page, looked up once. */
  private async namesOf(roots: readonly SpanRecord[]): Promise<Map<string, string | null>> {
    const names = new Map<string, string | null>();
    for (const { sessionId } of roots) {
      const node = NODE_SESSION.exec(sessionId);
      const key = node ? node[1] : sessionId;
      if (names.has(key)) continue;
      names.set(key, await (node ? this.deps.graphOf(node[1]) : this.deps.chatTitle(sessionId)).catch(() => null));
    }
    return names;
  }
}

function summaryOf(root: SpanRecord, names: Map<string, string | null>): TurnTraceSummary {
  const a = root.attributes;
  const node = NODE_SESSION.exec(root.sessionId);
  const source: TurnSource = node
    ? { kind: "node", instanceId: node[1], node: node[2], graph: names.get(node[1]) ?? null }
    : { kind: "chat", sessionId: root.sessionId, title: names.get(root.sessionId) ?? null };
  return {
    turnId: root.turnId,
    source,
    agent: text(a[GenAI.AGENT_NAME]) ?? root.name,
    startedAt: root.startTime,
    durationMs: Math.max(0, root.endTime - root.startTime),
    status: root.status.code,
    stopReason: text(a[Modex.STOP_REASON]),
    error: root.status.code === "error" ? (root.status.message ?? null) : null,
    inputTokens: count(a[GenAI.USAGE_INPUT_TOKENS]),
    outputTokens: count(a[GenAI.USAGE_OUTPUT_TOKENS]),
    ...trainingOf(root),
  };
}

function trainingOf(root: SpanRecord): TurnTraining {
  return { spanId: root.spanId, training: root.attributes[Training.RELEVANT] === true, trainingChosen: root.attributes[Training.CHOSEN] === true };
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

const encodeCursor = (c: TurnCursor): string => `${c.startTime}.${c.spanId}`;

/** The shape of a cursor this service hands out (the router refuses any other). */
export const TURN_CURSOR_PATTERN = /^(\d{1,16})\.([0-9a-f]{16})$/;

function decodeCursor(cursor: string | null | undefined): TurnCursor | null {
  const m = cursor ? TURN_CURSOR_PATTERN.exec(cursor) : null;
  return m ? { startTime: Number(m[1]), spanId: m[2] } : null;
}
