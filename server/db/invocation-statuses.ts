import type { InvocationStatus } from "@/server/graph/persistence/records";
import type { Database } from "./graph-database";
import { InstanceMemory } from "./instance-memory";

/** An instance's invocations that are not COMPLETED, as this connection wrote them. */
interface Unfinished {
  /** Id → RUNNING, or how it ended otherwise (CANCELLED, FAILED, CRASHED). */
  readonly byId: Map<string, InvocationStatus>;
  running: number;
}

/** Ended entries kept per instance beyond the RUNNING ones (the oldest go first: a bound, not a size). */
const MAX_ENDED = 64;

const unfinishedOf = new InstanceMemory<Unfinished>();

/**
 * What recovery asks of the invocation table when a paused run resumes — is anything RUNNING, did the
 * consumer of a claimed input complete — answered from memory for the instances this connection created,
 * as long as it keeps their version chains and ledger (instance-memory.ts): from creation, every
 * invocation of the instance was written here. Only what is not COMPLETED is kept (a node interrupted
 * or failed is rare, completions are not); an id it does not hold is asked of the table.
 */
export function trackInvocationStatuses(db: Database, instanceId: string): void {
  unfinishedOf.track(db, instanceId, { byId: new Map(), running: 0 });
}

/** An invocation of the instance was written in `status` (after the statement succeeded). */
export function noteInvocationStatus(db: Database, instanceId: string, invocationId: string, status: InvocationStatus): void {
  const memory = unfinishedOf.known(db, instanceId);
  if (!memory) return;
  const before = memory.byId.get(invocationId);
  if (before === "RUNNING") memory.running--;
  if (status === "COMPLETED") {
    memory.byId.delete(invocationId);
    return;
  }
  // Re-inserted last: the oldest ended entries are first in the map's order.
  memory.byId.delete(invocationId);
  memory.byId.set(invocationId, status);
  if (status === "RUNNING") memory.running++;
  else if (memory.byId.size - memory.running > MAX_ENDED) dropOldestEnded(memory);
}

function dropOldestEnded(memory: Unfinished): void {
  for (const [id, status] of memory.byId) {
    if (status === "RUNNING") continue;
    memory.byId.delete(id);
    return;
  }
}

/** True when memory knows the instance has no RUNNING invocation; false when it has, or is not known. */
export function knownNoneRunning(db: Database, instanceId: string): boolean {
  return unfinishedOf.known(db, instanceId)?.running === 0;
}

/** The status of an invocation memory knows is not COMPLETED; undefined: ask the table. */
export function knownUnfinishedStatus(db: Database, instanceId: string, invocationId: string): InvocationStatus | undefined {
  return unfinishedOf.known(db, instanceId)?.byId.get(invocationId);
}
