import { storageFailure } from "@/server/db/storage-errors";
import { ServiceError } from "./errors";

/**
 * What "acknowledged" means: a service answers a state change only after `committed()` resolved for it.
 * The SQLite implementation waits for the group commit that holds the write (it adds no commit of its
 * own); the in-memory one (unit tests) has nothing to wait for.
 */
export interface Durability {
  /** Where the writes made so far stand (an opaque mark to pass to `committed`). */
  mark(): number;
  /**
   * Resolves once the writes made before `mark` (default: now) are committed; rejects with a STORAGE_*
   * ServiceError when they were lost, even if that happened before the call.
   */
  committed(mark?: number): Promise<void>;
  /**
   * Runs synchronous writes as one transaction, committed when it returns (joining and committing any
   * deferred steps): for work whose Idempotency-Key row must commit with it.
   */
  together<T>(write: () => T): T;
  /** Hears of every storage failure: writes refused or rolled back (disk full, I/O error). */
  onFailure(listener: (error: unknown) => void): () => void;
  /** Stops the in-flight runs of these instances from writing (their steps may be lost: recovery redoes them). */
  fence(instanceIds: readonly string[]): void;
  /** Lifts a fence once its run has ended. */
  release(instanceId: string): void;
  isFenced(instanceId: string): boolean;
  /** A storage error as a ServiceError that says what failed and where; anything else unchanged. */
  explain(error: unknown): unknown;
}

export const inMemoryDurability: Durability = {
  mark: () => 0,
  together: (write) => write(),
  committed: () => Promise.resolve(),
  onFailure: () => () => {},
  fence: () => {},
  release: () => {},
  isFenced: () => false,
  explain: (error) => error,
};

/** 507 for a full disk or database quota, 503 for any other storage failure; reads keep working. */
export function storageServiceError(error: unknown, location: string): unknown {
  const failure = storageFailure(error);
  if (!failure) return error;
  const code = String((error as { code: string }).code);
  const cause = (error as Error).message;
  if (failure === "full") {
    return new ServiceError(
      "STORAGE_FULL",
      `the database ${location} is full (${cause}): nothing was written; free disk space or raise MODEX_DB_MAX_MB, then retry (reads still work)`,
    );
  }
  return new ServiceError("STORAGE_UNAVAILABLE", `the database ${location} refused the write (${code}: ${cause}): nothing was written; retry later (reads still work)`);
}
