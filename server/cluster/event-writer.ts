import type { EngineEvent, EngineObserver } from "@/server/graph/events";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import { isLeaseLost } from "./cluster-errors";
import { RELEASED_SET, type HeldLease } from "./lease-store";

/** Rows of any instances, inserted (and given ids) in array order. */
const INSERT_SQL = `INSERT INTO engine_events (instance_id, version, type, payload, created_at)
  SELECT e.i, e.v, e.t, e.p::json, to_timestamp(e.c / 1000.0)
  FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::float8[]) WITH ORDINALITY AS e(i, v, t, p, c, n)
  ORDER BY e.n`;

/**
 * INSERT_SQL, then the release (LeaseStore.release) of the leases $6 (instances), $7 (epochs) of owner
 * $8 whose runs ended: one statement, one commit. The events are inserted first: the one-time filter
 * counts every row of the insert (each checked by the fence while the lease is still held) before the
 * update reads its first lease row.
 */
const INSERT_RELEASE_SQL = `WITH ins AS (${INSERT_SQL} RETURNING 1)
  UPDATE cluster_leases l SET ${RELEASED_SET}
  FROM unnest($6::text[], $7::int[]) AS r(instance_id, epoch)
  WHERE l.instance_id = r.instance_id AND l.epoch = r.epoch AND l.owner = $8 AND (SELECT count(*) FROM ins) >= 0`;

/** A lease to release with its instance's last events, and who waits for it (true: released so). */
interface Release {
  lease: HeldLease;
  done: (released: boolean) => void;
}

interface Pending {
  version: number;
  event: EngineEvent;
  at: number;
}

export interface EventWriterOptions {
  db: PgQueryable;
  /** Awaited before each write, so an event is never stored before the step it describes (PgCoordinator.flush). */
  beforeWrite?: () => Promise<void>;
  /** The worker whose leases `forget` may release (its owner id). */
  owner?: string;
}

/**
 * An engine observer that appends a worker's engine events to `engine_events`: what every instance
 * emitted during a macrotask in one statement, each instance's in emission order. The insert trigger
 * NOTIFYs `modex_events` on commit. Event rows are fenced like every other write of the run: a worker
 * that lost an instance's lease stores none of its events (that instance's batch is dropped; the others
 * of the statement are written again without it).
 */
export class EventWriter implements EngineObserver {
  private readonly pending = new Map<string, Pending[]>();
  private releases: Release[] = [];
  private readonly versions = new Map<string, number>();
  private scheduled = false;
  /** The drain in progress: one write at a time, each taking everything pending when it starts. */
  private draining: Promise<void> | null = null;

  constructor(private readonly options: EventWriterOptions) {}

  onEvent(event: EngineEvent): void {
    // Node events carry the node's invocation version, not the instance's (as EventRecorder.observerFor).
    const sets = event.type === "instance_status" || event.type === "run_started" || event.type === "run_finished";
    const version = sets ? event.version : (this.versions.get(event.instanceId) ?? 1);
    this.versions.set(event.instanceId, version);
    let list = this.pending.get(event.instanceId);
    if (!list) this.pending.set(event.instanceId, (list = []));
    list.push({ version, event, at: Date.now() });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /**
   * Resolves once everything pending now is written. Never rejects. Writes do not queue up behind each
   * other: while one runs, new events gather and the next write takes them all.
   */
  flush(): Promise<void> {
    this.scheduled = false;
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
      if (this.pending.size > 0) void this.flush(); // arrived after the drain's last look
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const batches = [...this.pending];
      this.pending.clear();
      const releases = this.releases;
      this.releases = [];
      await this.write(batches, releases);
    }
  }

  /**
   * Stops tracking an instance whose run ended here (its events are flushed first). With `lease` (held
   * by `owner`), and events of the instance still to write, the lease is released in the statement
   * that writes them, after them: true then. False: the caller releases it (nothing of the instance
   * was pending, or that statement failed).
   */
  async forget(instanceId: string, lease?: HeldLease): Promise<boolean> {
    let released = false;
    if (lease && this.options.owner && this.pending.has(instanceId)) {
      // Written at the next macrotask, as events are: runs that end meanwhile join the statement.
      released = await new Promise<boolean>((done) => {
        this.releases.push({ lease, done });
        this.schedule();
      });
    } else await this.flush();
    this.versions.delete(instanceId);
    return released;
  }

  private async write(batches: [string, Pending[]][], releases: Release[]): Promise<void> {
    if (batches.length === 0) return void releases.forEach((r) => r.done(false));
    try {
      await this.options.beforeWrite?.();
    } catch {
      // the coordinator left the failure for the instance's next step
    }
    try {
      await this.insert(batches, releases);
      for (const r of releases) r.done(true);
    } catch (error) {
      // One instance's lease lost (or a deadlock with a takeover of one of the leases the statement
      // share-locks) fails the whole statement: each instance is written on its own then.
      if (batches.length > 1) {
        await Promise.all(
          batches.map(async (b) => {
            const own = releases.filter((r) => r.lease.instanceId === b[0]);
            try {
              await this.insert([b], own);
              for (const r of own) r.done(true);
            } catch (e) {
              warnUnlessLost(b[0], e);
            }
          }),
        );
      } else warnUnlessLost(batches[0][0], error);
      for (const r of releases) r.done(false); // no effect on one told already
    }
  }

  private async insert(batches: [string, Pending[]][], releases: readonly Release[]): Promise<void> {
    const ids: string[] = [];
    const versions: number[] = [];
    const types: string[] = [];
    const payloads: string[] = [];
    const at: number[] = [];
    for (const [instanceId, list] of batches) {
      for (const p of list) {
        ids.push(instanceId);
        versions.push(p.version);
        types.push(p.event.type);
        payloads.push(JSON.stringify(p.event));
        at.push(p.at);
      }
    }
    const values = [ids, versions, types, payloads, at];
    if (releases.length === 0) {
      await this.options.db.query({ name: "modex_cluster_events", text: INSERT_SQL, values });
      return;
    }
    const leases = [releases.map((r) => r.lease.instanceId), releases.map((r) => r.lease.epoch), this.options.owner];
    await this.options.db.query({ name: "modex_cluster_events_release", text: INSERT_RELEASE_SQL, values: [...values, ...leases] });
  }
}

function warnUnlessLost(what: string, error: unknown): void {
  if (!isLeaseLost(error)) console.warn(`[modex worker] events of ${what} not stored: ${(error as Error).message}`);
}
