import { type Database } from "@/server/db/graph-database";
import { commitMark, commitWith, onStorageFailure, whenCommitted } from "@/server/db/deferred-transaction";
import { fencedRuns, isRunFenced } from "@/server/db/run-fence";
import { ServiceError } from "./errors";
import { storageServiceError, type Durability } from "./durability";

/** Durability on the app's SQLite connection: the group commit's promise and the runs' fences. */
export function sqliteDurability(db: Database): Durability {
  const fenced = fencedRuns(db);
  const explain = (error: unknown): unknown => {
    if (isRunFenced(error)) {
      return new ServiceError("STORAGE_UNAVAILABLE", `a storage failure on ${db.name} interrupted this run; it is recovered from its last commit`);
    }
    const described = storageServiceError(error, db.name);
    if (described !== error) return described;
    // A rollback's own cause (SQLite rolled the transaction back): still the storage's failure.
    if (error instanceof Error && /rolled back/.test(error.message)) {
      return new ServiceError("STORAGE_UNAVAILABLE", `${error.message}: nothing was written; retry`);
    }
    return error;
  };
  return {
    mark: () => commitMark(db),
    together: (write) => commitWith(db, write),
    committed: (mark) => whenCommitted(db, mark).catch((error: unknown) => Promise.reject(explain(error))),
    onFailure: (listener) => onStorageFailure(db, listener),
    fence: (ids) => {
      for (const id of ids) fenced.add(id);
    },
    release: (id) => void fenced.delete(id),
    isFenced: (id) => fenced.has(id),
    explain,
  };
}
