import type { Database } from "./graph-database";

/** Past this many tracked instances the table answers again (a bound, not an expected size). */
const MAX_TRACKED = 1000;

/** Every kind of instance memory: a run's status change parks, restores or forgets all of them. */
const kinds: InstanceMemory<unknown>[] = [];

interface Parked<T> {
  readonly memory: T;
  /** The connection's `PRAGMA data_version` when the instance was paused. */
  readonly dataVersion: number;
}

/**
 * One kind of what a connection keeps in memory about the instances it runs (version chains, a mirrored
 * ledger), per connection, valid while the connection is the instance's one writer.
 *
 * A pause ends that: another process may deliver to the paused instance or resume it. The memory is
 * then parked with the connection's data_version, which SQLite changes whenever another connection
 * commits. Only the resume that finds it unchanged takes the memory back. Any other access to a parked
 * instance's memory forgets it, since this connection may be about to write through the table.
 */
export class InstanceMemory<T> {
  private readonly live = new WeakMap<Database, Map<string, T>>();
  private readonly parked = new WeakMap<Database, Map<string, Parked<T>>>();

  constructor() {
    kinds.push(this as InstanceMemory<unknown>);
  }

  track(db: Database, instanceId: string, memory: T): T {
    let tracked = this.live.get(db);
    if (!tracked) this.live.set(db, (tracked = new Map()));
    if (tracked.size >= MAX_TRACKED) tracked.clear();
    tracked.set(instanceId, memory);
    this.parked.get(db)?.delete(instanceId);
    return memory;
  }

  known(db: Database, instanceId: string): T | undefined {
    const memory = this.live.get(db)?.get(instanceId);
    if (memory === undefined) this.parked.get(db)?.delete(instanceId);
    return memory;
  }

  forget(db: Database, instanceId: string): void {
    this.live.get(db)?.delete(instanceId);
    this.parked.get(db)?.delete(instanceId);
  }

  forgetAll(db: Database): void {
    this.live.get(db)?.clear();
    this.parked.get(db)?.clear();
  }

  /** The instance was paused by this connection when its data_version was `dataVersion`. */
  park(db: Database, instanceId: string, dataVersion: number): void {
    const memory = this.live.get(db)?.get(instanceId);
    if (memory === undefined) return;
    this.live.get(db)!.delete(instanceId);
    let parked = this.parked.get(db);
    if (!parked) this.parked.set(db, (parked = new Map()));
    if (parked.size >= MAX_TRACKED) parked.clear();
    parked.set(instanceId, { memory, dataVersion });
  }

  /**
   * The instance is (re)started by this connection: its parked memory is live again if no other
   * connection committed since the pause; anything else it had of the instance is forgotten.
   */
  unpark(db: Database, instanceId: string, dataVersion: number): void {
    const entry = this.parked.get(db)?.get(instanceId);
    this.forget(db, instanceId);
    if (entry?.dataVersion === dataVersion) this.track(db, instanceId, entry.memory);
  }
}

/** The instance was paused by this connection: every kind of its memory is parked (see `park`). */
export function parkRunMemory(db: Database, instanceId: string, dataVersion: number): void {
  for (const kind of kinds) kind.park(db, instanceId, dataVersion);
}

/** The instance is (re)started by this connection: every kind of its memory is unparked (see `unpark`). */
export function unparkRunMemory(db: Database, instanceId: string, dataVersion: number): void {
  for (const kind of kinds) kind.unpark(db, instanceId, dataVersion);
}

/** The instance changed status or version: nothing kept of it can be trusted. */
export function forgetRunMemory(db: Database, instanceId: string): void {
  for (const kind of kinds) kind.forget(db, instanceId);
}

/** Something was rolled back: nothing kept of any instance can be trusted. */
export function forgetAllRunMemory(db: Database): void {
  for (const kind of kinds) kind.forgetAll(db);
}
