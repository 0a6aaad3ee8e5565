/**
 * Stores may answer synchronously (in-memory, better-sqlite3) or asynchronously (a network
 * database). The engine's hot path threads values through `chain`, so a synchronous store costs no
 * promise, no microtask and no allocation beyond its own work.
 */
export type Awaitable<T> = T | Promise<T>;

export const isPromise = <T>(v: Awaitable<T>): v is Promise<T> =>
  typeof (v as { then?: unknown } | null)?.then === "function";

/** Applies `fn` now when `value` is ready, or when it resolves. */
export function chain<T, R>(value: Awaitable<T>, fn: (v: T) => Awaitable<R>): Awaitable<R> {
  return isPromise(value) ? value.then(fn) : fn(value);
}
