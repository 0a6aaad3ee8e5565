import type { EngineEvent, EngineObserver } from "@/server/graph/events";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import { isLeaseLost } from "./cluster-errors";

/** Rows of any instances, inserted (and given ids) in array order. */
const INSERT_SQL = `INSERT INTO engine_events (instance_id, version, type, payload, created_at)
  SELECT e.i, e.v, e.t, e.p::json, to_timestamp(e.c / 1000.0)
  FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::float8[]) WITH ORDINALITY AS e(i, v, t, p, c, n)
  ORDER BY e.n`;

interface Pending {
  version: number;
  event: EngineEvent;
  at: number;
}

export interface EventWriterOptions {
  db: PgQueryable;
  /** Awaited before each write, so an event is never stored before the step it describes (PgCoordinator.flush). */
  beforeWrite?: () => Promise<void>;
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
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /**
   * Resolves once everything pending now is written. Never rejects. Writes do not queue up behind each
   * other: while one runs, new events gather and the next write takes them all.
   */
  flush(): Promise<void> {
    this.scheduled = false;
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const batches = [...this.pending];
      this.pending.clear();
      await this.write(batches);
    }
  }

  /** Stops tracking an instance whose run ended here (its events are flushed first). */
  async forget(instanceId: string): Promise<void> {
    await this.flush();
    this.versions.delete(instanceId);
  }

  private async write(batches: [string, Pending[]][]): Promise<void> {
    if (batches.length === 0) return;
    try {
      await this.options.beforeWrite?.();
    } catch {
      // the coordinator left the failure for the instance's next step
    }
    try {
      await this.insert(batches);
    } catch (error) {
      // One instance's lease lost (or a deadlock with a takeover of one of the leases the statement
      // share-locks) fails the whole statement: each instance is written on its own then.
      if (batches.length > 1) await Promise.all(batches.map((b) => this.insert([b]).catch((e: unknown) => warnUnlessLost(b[0], e))));
      else warnUnlessLost(batches[0][0], error);
    }
  }

  private async insert(batches: [string, Pending[]][]): Promise<void> {
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
    await this.options.db.query({ name: "modex_cluster_events", text: INSERT_SQL, values: [ids, versions, types, payloads, at] });
  }
}

function warnUnlessLost(what: string, error: unknown): void {
  if (!isLeaseLost(error)) console.warn(`[modex worker] events of ${what} not stored: ${(error as Error).message}`);
}
