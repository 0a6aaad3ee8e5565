import { z } from "zod";
import { ChatMessageSchema, ToolCallSchema } from "../llm/messages";
import { TokenUsageSchema } from "../llm/token-usage";
import { ToolResultSchema } from "../tools/tool-result";
import { TurnCustomMap } from "../state/turn-custom";
import type { TurnState } from "../state/turn-state";
import { ApprovalTransactionSchema } from "./approval-types";

/**
 * A turn frozen to plain data: written before an approval suspend (and by the checkpoint hook after each
 * iteration), read to resume the same turn attempt — same attempt count, same iteration budget.
 */
export const TurnSnapshotSchema = z.object({
  sessionId: z.string(),
  turnId: z.string(),
  startedAt: z.number(),
  /** The ReAct node the resumed run re-enters at (TOOL for approvals), or null. */
  resumeTarget: z.string().nullable(),
  takenAt: z.number(),
  turn: z.object({
    messages: z.array(ChatMessageSchema),
    custom: z.record(z.string(), z.unknown()),
    turnAttempt: z.number().int(),
    iteration: z.number().int(),
    maxIterations: z.number().int(),
    maxTurns: z.number().int(),
    usage: TokenUsageSchema,
    pendingToolCalls: z.array(ToolCallSchema),
    toolBatchResults: z.array(ToolResultSchema),
    pendingApproval: ApprovalTransactionSchema.optional(),
    toolBatchCalls: z.array(ToolCallSchema),
  }),
});
export type TurnSnapshot = z.infer<typeof TurnSnapshotSchema>;

export function snapshotTurn(turn: TurnState, resumeTarget: string | null, takenAt = Date.now()): TurnSnapshot {
  return TurnSnapshotSchema.parse({
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    startedAt: turn.startedAt,
    resumeTarget,
    takenAt,
    turn: {
      messages: turn.messages,
      // A JSON round trip: custom values must be JSON-serialisable (a value may define toJSON to persist
      // only its durable part, as the trace session does).
      custom: JSON.parse(JSON.stringify(turn.custom)) as Record<string, unknown>,
      turnAttempt: turn.turnAttempt,
      iteration: turn.iteration,
      maxIterations: turn.maxIterations,
      maxTurns: turn.maxTurns,
      usage: turn.usage,
      pendingToolCalls: turn.pendingToolCalls,
      toolBatchResults: turn.toolBatchResults,
      pendingApproval: turn.pendingApproval,
      toolBatchCalls: turn.toolBatchCalls,
    },
  });
}

export function restoreTurn(snapshot: TurnSnapshot): TurnState {
  const t = structuredClone(snapshot.turn);
  return {
    sessionId: snapshot.sessionId,
    turnId: snapshot.turnId,
    startedAt: snapshot.startedAt,
    messages: t.messages,
    custom: TurnCustomMap.fromJSON(t.custom),
    turnAttempt: t.turnAttempt,
    iteration: t.iteration,
    maxIterations: t.maxIterations,
    maxTurns: t.maxTurns,
    usage: t.usage,
    pendingToolCalls: t.pendingToolCalls,
    toolBatchResults: t.toolBatchResults,
    ...(t.pendingApproval ? { pendingApproval: t.pendingApproval } : {}),
    toolBatchCalls: t.toolBatchCalls,
  };
}

/** Where turn snapshots live; keyed by turn id (the latest snapshot of a turn wins). */
export interface TurnSnapshotStore {
  save(snapshot: TurnSnapshot): Promise<void>;
  load(turnId: string): Promise<TurnSnapshot | undefined>;
}

export class InMemoryTurnSnapshotStore implements TurnSnapshotStore {
  private readonly rows = new Map<string, TurnSnapshot>();

  async save(snapshot: TurnSnapshot): Promise<void> {
    this.rows.set(snapshot.turnId, structuredClone(TurnSnapshotSchema.parse(snapshot)));
  }

  async load(turnId: string): Promise<TurnSnapshot | undefined> {
    const row = this.rows.get(turnId);
    return row && structuredClone(row);
  }
}
