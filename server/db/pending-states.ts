import { type Database } from "./graph-database";
import { beginDeferred, holdPendingWrites, type PendingWrites } from "./deferred-transaction";

/**
 * State saves of the open deferred transaction, kept in memory until something needs them in the table:
 * usually the instance's next status change (a pause, a run's end), which then writes the state in its
 * own UPDATE — the instance row is rewritten once, not twice. Anything else that commits, writes or
 * reads through the stores first writes them (`PendingWrites`), so no commit point and no reader can
 * tell; a rollback drops them.
 */
export class PendingStates implements PendingWrites {
  private readonly byInstance = new Map<string, string>();

  constructor(
    private readonly db: Database,
    private readonly io: {
      write(instanceId: string, json: string): void;
      /** A held state was dropped unwritten (rolled back). */
      dropped(instanceId: string): void;
    },
  ) {}

  /** Holds `json` as the instance's state; false, holding nothing, outside a deferred transaction of ours. */
  hold(instanceId: string, json: string): boolean {
    if (!beginDeferred(this.db, false)) return false;
    holdPendingWrites(this.db, this);
    this.byInstance.set(instanceId, json);
    return true;
  }

  /** The instance's held state, for the caller to write now; it is no longer held. */
  take(instanceId: string): string | undefined {
    const json = this.byInstance.get(instanceId);
    if (json !== undefined) this.byInstance.delete(instanceId);
    return json;
  }

  flush(): void {
    for (const [instanceId, json] of this.byInstance) this.io.write(instanceId, json);
    this.byInstance.clear();
  }

  discard(): void {
    for (const instanceId of this.byInstance.keys()) this.io.dropped(instanceId);
    this.byInstance.clear();
  }
}
