import type { Database } from "better-sqlite3";

/**
 * Runs that must stop writing: after a storage failure rolled back (or may have rolled back) steps of
 * the runs on a connection, their in-memory state is ahead of the database. A fenced instance's run is
 * refused every further engine write (`RunFencedError`), so it ends without settling anything, as a
 * crash would; once it has ended, the fence is lifted and recovery continues it from its last commit.
 */
export class RunFencedError extends Error {
  readonly code = "RUN_FENCED";
  constructor(readonly instanceId: string) {
    super(`instance ${instanceId} stopped writing after a storage failure; it is recovered from its last commit`);
    this.name = "RunFencedError";
  }
}

export const isRunFenced = (e: unknown): boolean => (e as { code?: unknown } | null)?.code === "RUN_FENCED";

const fences = new WeakMap<Database, Set<string>>();

/** The fenced instance ids of a connection: one Set per connection, kept by its stores. */
export function fencedRuns(db: Database): Set<string> {
  let set = fences.get(db);
  if (!set) fences.set(db, (set = new Set()));
  return set;
}

/** Throws when `instanceId` is fenced; one size check while nothing is (the hot path). */
export function assertUnfenced(fenced: ReadonlySet<string>, instanceId: string): void {
  if (fenced.size !== 0 && fenced.has(instanceId)) throw new RunFencedError(instanceId);
}
