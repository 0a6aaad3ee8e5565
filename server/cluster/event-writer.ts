import type { EngineEvent, EngineObserver } from "@/server/graph/events";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import { isLeaseLost } from "./cluster-errors";

const INSERT_SQL = `INSERT INTO engine_events (instance_id, version, type, payload, created_at)
  SELECT $1, v, t, p::json, to_timestamp(c / 1000.0) FROM unnest($2::int[], $3::text[], $4::text[], $5::float8[]) AS e(v, t, p, c)`;

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
 * An engine observer that appends a worker's engine events to `engine_events`, batched per instance
 * (one statement per instance per macrotask) and in emission order. The insert trigger NOTIFYs
 * `modex_events` on commit. Event rows are fenced like every other write of the run: a worker that lost
 * an instance's lease stores none of its events (the batch is dropped).
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
    await Promise.all(
      batches.map(async ([instanceId, list]) => {
        try {
          await this.options.db.query({
            name: "modex_cluster_events",
            text: INSERT_SQL,
            values: [instanceId, list.map((p) => p.version), list.map((p) => p.event.type), list.map((p) => JSON.stringify(p.event)), list.map((p) => p.at)],
          });
        } catch (error) {
          if (!isLeaseLost(error)) console.warn(`[modex worker] events of ${instanceId} not stored: ${(error as Error).message}`);
        }
      }),
    );
  }
}
