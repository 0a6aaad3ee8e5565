import { createHash } from "node:crypto";
import type { Awaitable } from "@/server/graph/awaitable";
import { ServiceError } from "./errors";
import { isKeyTaken, RESERVED_REFERENCE, type IdempotencyStore } from "./idempotency-store";

/**
 * Called by the work, inside the transaction of its first write, with what it made: synchronously on
 * SQLite; a caller whose transaction is asynchronous (PostgreSQL) awaits it before committing. Its
 * promise never rejects (a failure shows in the transaction, or leaves the key reserved).
 */
export type ClaimKey = (reference: string) => Awaitable<void>;

export interface IdempotentCall<R> {
  /** The client's Idempotency-Key; none: the work just runs. */
  key: string | null | undefined;
  /** The command and its target ("create", "answer:<instance id>"): a key is unique per scope. */
  scope: string;
  /** The request's arguments: the same key with other arguments is refused. */
  request: unknown;
  /** The success status the first answer had (replayed with it). */
  status: number;
  /**
   * The work; it calls `claim` beside its first write, so the key and the work commit together. Without a
   * key there is nothing to claim (undefined): the work's writes join the group commit like any other.
   * (A method, so work written for a key, taking `claim: ClaimKey`, still fits.)
   */
  execute(claim?: ClaimKey): Promise<R>;
  /**
   * The answer for a key whose work is committed but whose answer was not stored (a crash in between, or
   * a duplicate still in flight): rebuilt from what `reference` names; null if that work did not happen.
   */
  reconstruct: (reference: string) => Promise<R | null>;
}

export interface IdempotentAnswer<R> {
  status: number;
  body: R;
  /** True when this is the first request's answer, given again. */
  replayed: boolean;
}

/** Keys are kept this long (the IETF draft's usual window): a retry after a day is a new request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A key reserved this long ago whose work never said what it made belongs to a request that died (its
 * process ended between reservation and work): a retry then runs the work. Commands answer in seconds.
 */
export const RESERVATION_STALE_MS = 5 * 60 * 1000;

/**
 * Idempotency-Key for the commands that create work or decide (create, reinvoke, deliver, answer,
 * approve/deny): a repeated request gets the first answer, so a client that lost the connection may
 * retry without running the work twice. The key's row commits with the work itself (see `ClaimKey`); the
 * answer is stored after.
 */
export class IdempotencyService {
  constructor(private readonly store: IdempotencyStore) {}

  async run<R>(call: IdempotentCall<R>): Promise<IdempotentAnswer<R>> {
    const { key } = call;
    // No claim, not a no-op one: a claim makes the work a transaction of its own, committed at once.
    if (!key) return { status: call.status, body: await call.execute(undefined), replayed: false };
    if (key.length > 255) throw new ServiceError("BAD_REQUEST", "Idempotency-Key is longer than 255 characters");
    const fingerprint = fingerprintOf(call.request);
    const earlier = await this.earlier(call, fingerprint);
    if (earlier) return earlier;
    return this.store.claimsWithWork ? this.claimWithWork(call, key, fingerprint) : this.reserveFirst(call, key, fingerprint);
  }

  /** Forgets keys older than the window (recovery passes call this). */
  async prune(now = Date.now()): Promise<number> {
    return this.store.prune(now - IDEMPOTENCY_TTL_MS);
  }

  /** The key's row commits in the work's own transaction (SQLite): a duplicate's work rolls back on the key. */
  private async claimWithWork<R>(call: IdempotentCall<R>, key: string, fingerprint: string): Promise<IdempotentAnswer<R>> {
    const { scope } = call;
    let claimed = false;
    const claim: ClaimKey = (reference) => {
      const put = this.store.put({ scope, key, fingerprint, reference }); // a duplicate throws here, in the work's transaction
      claimed = true;
      return put;
    };
    let body: R;
    try {
      body = await call.execute(claim);
    } catch (error) {
      // A duplicate that raced this one claimed the key first: its work stands, and ours rolled back on
      // the key (a primary-key conflict) or was refused because that work was already done (an approval
      // already decided answers 409): either way the answer is the first request's.
      if ((isKeyTaken(error) || !claimed) && (await this.store.get(scope, key))) {
        // The first may still be at work: its key is kept even when its answer cannot be rebuilt yet.
        const raced = await this.earlier(call, fingerprint, { forget: false });
        if (raced) return raced;
      }
      throw error;
    }
    if (claimed) await this.storeAnswer(call, key, body);
    return { status: call.status, body, replayed: false };
  }

  /**
   * The work commits apart from the key (PostgreSQL, where several processes share the keys): the key is
   * reserved first (its primary key lets one request in), the work runs, then its row names what the work
   * made. A duplicate arriving meanwhile gets the first answer, or a 409 while there is none yet.
   */
  private async reserveFirst<R>(call: IdempotentCall<R>, key: string, fingerprint: string): Promise<IdempotentAnswer<R>> {
    const { scope } = call;
    try {
      await this.store.put({ scope, key, fingerprint, reference: RESERVED_REFERENCE });
    } catch (error) {
      if (!isKeyTaken(error)) throw error;
      const raced = await this.earlier(call, fingerprint, { forget: false });
      if (raced) return raced;
      throw inProgress(key);
    }
    // Inside the work's transaction when it has one (PgAppDatabase): the reference commits with the work.
    let referring: Promise<void> | undefined;
    const claim: ClaimKey = (reference) =>
      (referring = Promise.resolve(this.store.refer(scope, key, reference)).catch((error: unknown) => {
        console.warn(`[modex] could not record what Idempotency-Key ${key} made: ${(error as Error).message}`);
      }));
    let body: R;
    try {
      body = await call.execute(claim);
    } catch (error) {
      await referring;
      await this.releaseUnlessReferred(scope, key);
      throw error;
    }
    await referring;
    await this.storeAnswer(call, key, body);
    return { status: call.status, body, replayed: false };
  }

  /**
   * After failed work: a key that names what the work made stays (the work committed, as with SQLite); a
   * key still only reserved is freed (the work made nothing, or its transaction rolled back with the name).
   */
  private async releaseUnlessReferred(scope: string, key: string): Promise<void> {
    try {
      const row = await this.store.get(scope, key);
      if (row?.reference === RESERVED_REFERENCE) await this.store.remove(scope, key, row.createdAt);
    } catch (error) {
      // Left reserved: a retry answers 409 until the reservation is stale (RESERVATION_STALE_MS).
      console.warn(`[modex] could not release Idempotency-Key ${key}: ${(error as Error).message}`);
    }
  }

  private async storeAnswer<R>(call: IdempotentCall<R>, key: string, body: R): Promise<void> {
    try {
      await this.store.complete(call.scope, key, call.status, body);
    } catch (error) {
      // The key's row already proves the work happened: a repeat rebuilds the answer from it.
      console.warn(`[modex] could not store the answer of Idempotency-Key ${key}: ${(error as Error).message}`);
    }
  }

  /** The first request's answer for the key; `forget`: drop a claim whose work never committed, and say none. */
  private async earlier<R>(call: IdempotentCall<R>, fingerprint: string, options = { forget: true }): Promise<IdempotentAnswer<R> | null> {
    const found = await this.store.get(call.scope, call.key!);
    if (!found) return null;
    if (found.fingerprint !== fingerprint) {
      throw new ServiceError("IDEMPOTENCY_MISMATCH", `Idempotency-Key ${call.key} was used for a different request; use a new key for new work`);
    }
    if (found.response !== null && found.status !== null) return { status: found.status, body: found.response as R, replayed: true };
    if (found.reference === RESERVED_REFERENCE) {
      // Reserved by a request whose work has not said what it made: still at work, or dead long enough ago.
      if (Date.now() - found.createdAt < RESERVATION_STALE_MS) throw inProgress(call.key!);
    } else {
      const rebuilt = await call.reconstruct(found.reference);
      if (rebuilt !== null) return { status: call.status, body: rebuilt, replayed: true };
    }
    // Claimed, but the work never committed (a reinvoke whose run died before it started): run it again.
    // Only this row goes: a reservation another request made since is not dropped.
    if (options.forget) await this.store.remove(call.scope, call.key!, found.createdAt);
    return null;
  }
}

/** A duplicate of a request still at work (the IETF draft's 409 for a concurrent request). */
function inProgress(key: string): ServiceError {
  return new ServiceError("IDEMPOTENCY_IN_PROGRESS", `a request with Idempotency-Key ${key} is still in progress: retry in a moment with the same key`);
}

function fingerprintOf(request: unknown): string {
  return createHash("sha256").update(JSON.stringify(request) ?? "null").digest("base64url");
}
