import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { ClusterControl } from "../cluster-control";
import { ClusterGraphControl } from "../cluster-graph-control";
import { ClusterWorker, type ClusterWorkerOptions } from "../cluster-worker";
import { ClusterFixture } from "./cluster-fixture";
import { testGraphCatalog } from "./cluster-graphs";

export interface WebOptions {
  /** ClusterGraphControl's drain wait (default 2 s). */
  drainWaitMs?: number;
  /** How long a reply waits for a worker to start the run it made due (default 2 s). */
  startWaitMs?: number;
}

/**
 * A cluster to race control commands on: a fresh database (ClusterFixture), web processes (each its
 * own pool and ClusterGraphControl) and workers (lease 2 s) on it, and reads of what they left.
 * Disposing stops the workers, closes the web pools and drops the database, last made first. The
 * members are bound (arrow functions), so a test may destructure them.
 */
export class ControlCluster implements AsyncDisposable {
  private readonly owned: (() => Promise<unknown>)[] = [];

  private constructor(readonly fx: ClusterFixture) {
    this.owned.push(() => fx[Symbol.asyncDispose]());
  }

  static async create(): Promise<ControlCluster> {
    return new ControlCluster(await ClusterFixture.create());
  }

  /** A web process: its own pool and control plane on the shared database. */
  readonly web = (options: WebOptions = {}): ClusterGraphControl => {
    const db = PgAppDatabase.open({ url: this.fx.url, maxConnections: 4 });
    this.owned.push(() => db.close());
    return new ClusterGraphControl({ db, cluster: new ClusterControl({ db, dispatch: this.fx.dispatch }), drainWaitMs: options.drainWaitMs, startWaitMs: options.startWaitMs });
  };

  readonly worker = async (options: Partial<ClusterWorkerOptions> = {}): Promise<ClusterWorker> => {
    const w = await ClusterWorker.start({ url: this.fx.url, graphs: testGraphCatalog, leaseMs: 2000, ...options });
    this.owned.push(() => w.stop(1000));
    return w;
  };

  readonly instance = async (id: string) => {
    const rows = await this.fx.query<{ status: string; version: number; attrs: Record<string, unknown> }>(
      "SELECT status, version, attrs FROM graph_instances WHERE instance_id = $1 AND is_latest",
      [id],
    );
    return rows[0];
  };

  readonly lease = async (id: string) =>
    (await this.fx.query<{ owner: string | null; requested: string | null }>("SELECT owner, requested FROM cluster_leases WHERE instance_id = $1", [id]))[0];

  /** The contents of the latest version's output. */
  readonly output = async (id: string): Promise<unknown[]> => {
    const rows = await this.fx.query<{ output: { content: unknown }[] }>("SELECT output FROM graph_io_records WHERE instance_id = $1 ORDER BY version DESC LIMIT 1", [id]);
    return rows[0].output.map((p) => p.content);
  };

  /** pg-boss `resume` jobs ever enqueued for the instance (an accepted resume, answer or decision each). */
  readonly resumeJobs = async (id: string): Promise<number> =>
    (await this.fx.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'instanceId' = $1 AND data->>'kind' = 'resume'", [id]))[0].n;

  async [Symbol.asyncDispose](): Promise<void> {
    for (const dispose of this.owned.splice(0).reverse()) await dispose().catch(() => undefined);
  }
}
