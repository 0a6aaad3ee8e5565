import { createHash } from "node:crypto";
import type { DeliveredInput } from "../../graph/node";
import { restoreTurn, TurnSnapshotSchema, type TurnSnapshot, type TurnSnapshotStore } from "../approval/turn-snapshot";
import { CheckpointHook } from "../hook/builtin/checkpoint-hook";
import type { HookSpec } from "../hook/hook-runner";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import type { TurnState } from "../state/turn-state";

/**
 * How many times recoveries resume one turn from its checkpoints. A turn whose work kills the server
 * would otherwise crash it at every recovery: past this the node fails (NODE_RESUME_LIMIT_MESSAGE), and
 * its checkpoint is dropped, so a retry of the node starts anew. The count is kept in the turn, so the
 * legs of a turn that waited for approvals share it.
 */
export const MAX_NODE_CHECKPOINT_RESUMES = 2;

export const NODE_RESUME_LIMIT_MESSAGE = `the server stopped while its turn ran, again after ${MAX_NODE_CHECKPOINT_RESUMES} resumes from its last checkpoint: it is not resumed again (retry the node or start the run again)`;

/**
 * Where an agent node's running turn keeps its iteration checkpoint, under a key of the node invocation
 * (nodeCheckpointKey), not of the turn: the invocation a recovery runs in place of the crashed one
 * finds it. Apart from approval snapshots (keyed by turn id), so neither overwrites the other.
 */
export interface NodeCheckpointStore {
  save(key: string, snapshot: TurnSnapshot): Promise<void>;
  load(key: string): Promise<TurnSnapshot | undefined>;
  delete(key: string): Promise<void>;
}

export class InMemoryNodeCheckpointStore implements NodeCheckpointStore {
  private readonly rows = new Map<string, TurnSnapshot>();

  async save(key: string, snapshot: TurnSnapshot): Promise<void> {
    this.rows.set(key, structuredClone(TurnSnapshotSchema.parse(snapshot)));
  }

  async load(key: string): Promise<TurnSnapshot | undefined> {
    const row = this.rows.get(key);
    return row && structuredClone(row);
  }

  async delete(key: string): Promise<void> {
    this.rows.delete(key);
  }
}

/**
 * The key of one node invocation's turn: the instance, the node and the deliver rows it consumes. A
 * recovery re-offers the crashed invocation's rows (CONSUMED_PENDING) to the one that replaces it, so
 * both have the same key; any other invocation consumes other rows. An input set that grew meanwhile
 * (a row that arrived after the crash) is another key: that turn starts anew, as it must to read it.
 * A leg resumed by an approval decision consumes the decision's row too: its key is its own, apart from
 * the leg that suspended. Null without inputs (nothing identifies the invocation).
 */
export function nodeCheckpointKey(instanceId: string, node: string, inputs: readonly DeliveredInput[]): string | null {
  if (inputs.length === 0) return null;
  const ids = inputs.map((i) => i.deliverId).sort();
  const digest = createHash("sha256").update(ids.join("\n")).digest("hex").slice(0, 32);
  return `node-turn:${instanceId}:${node}:${digest}`;
}

/**
 * True when a recovery re-offered the rows of a cut leg: only then can a checkpoint of them exist. A leg
 * resumed by an approval `decision` was cut when its decision's row is re-offered: the rows of the legs
 * before it are re-offered with every decision, cut or not.
 */
export function isRecoveredInput(inputs: readonly DeliveredInput[], decision?: DeliveredInput): boolean {
  return (decision ? [decision] : inputs).some((i) => i.status === "CONSUMED_PENDING");
}

/** What a node invocation does with the checkpoint it found: run anew, resume from it, or give up. */
export type CheckpointDecision =
  | { kind: "fresh" }
  | { kind: "resume"; snapshot: TurnSnapshot; turn: TurnState; resumes: number }
  | { kind: "exhausted"; snapshot: TurnSnapshot };

/** Resume while fewer than MAX_NODE_CHECKPOINT_RESUMES resumes were made; the turn's count is raised. */
export function checkpointDecision(snapshot: TurnSnapshot | undefined): CheckpointDecision {
  if (!snapshot) return { kind: "fresh" };
  const done = resumesOf(snapshot);
  if (done >= MAX_NODE_CHECKPOINT_RESUMES) return { kind: "exhausted", snapshot };
  const turn = restoreTurn(snapshot);
  turn.custom.set(TurnCustomKeys.CHECKPOINT_RESUMES, done + 1);
  return { kind: "resume", snapshot, turn, resumes: done + 1 };
}

function resumesOf(snapshot: TurnSnapshot): number {
  const count = snapshot.turn.custom[TurnCustomKeys.CHECKPOINT_RESUMES.name];
  return typeof count === "number" ? count : 0;
}

/** The notice a resumed turn shows in the run's timeline and agent panel. */
export function resumedSummary(snapshot: TurnSnapshot, resumes: number): string {
  const again = resumes > 1 ? ` (resume ${resumes})` : "";
  return `resumed after a restart${again}, from the end of step ${snapshot.turn.iteration}: its tool results are kept, no tool before it runs again`;
}

const CHECKPOINT_PRIORITY = 1_000;

/**
 * The checkpoint hook of one node invocation's turn: each iteration's snapshot saved under `key`;
 * `onSave` is told before each save (the node then knows it has a checkpoint to delete).
 */
export function nodeCheckpointHook(store: NodeCheckpointStore, key: string, onSave: () => void = () => {}): HookSpec {
  const snapshots: TurnSnapshotStore = {
    save: (snapshot) => {
      onSave();
      return store.save(key, snapshot);
    },
    load: () => store.load(key),
  };
  // Last of the AFTER_ITERATION hooks: the checkpoint holds what the others did to the turn.
  return { hook: new CheckpointHook(snapshots), name: "checkpoint", priority: CHECKPOINT_PRIORITY };
}
