/**
 * Whether an error says the storage failed (not the statement or the data), and how: `full` for a full
 * disk or database quota, `unavailable` for anything else that may work again later (I/O, locks, a
 * read-only file). The one place these driver codes are read; the layers above speak of the two kinds.
 */
export type StorageFailure = "full" | "unavailable";

const SQLITE_FULL = /^SQLITE_FULL/;
const SQLITE_UNAVAILABLE = /^SQLITE_(IOERR|READONLY|CANTOPEN|NOMEM|BUSY|LOCKED|PROTOCOL|CORRUPT|NOTADB)/;

export function storageFailure(error: unknown): StorageFailure | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  if (SQLITE_FULL.test(code)) return "full";
  if (SQLITE_UNAVAILABLE.test(code)) return "unavailable";
  return null;
}

/** True for an error that says the storage failed (disk full, I/O error, read-only file), not the data. */
export function isStorageError(error: unknown): boolean {
  return storageFailure(error) !== null;
}
