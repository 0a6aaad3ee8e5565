import { PgCoordinator } from "../server/db/pg/pg-coordinator";
import { PgTestDatabase } from "../server/db/pg/testing/pg-test-database";
import { fanOut, linearChain } from "../server/graph/testing/fixtures";
import { clusterFigures } from "./cluster-scale-bench";
import { median, report, time } from "./measure";

/**
 * Scale-out figures on PostgreSQL (issue 19), on a fresh database `modex_test_<random>` of the server at
 * MODEX_TEST_PG_URL (default postgresql://postgres@127.0.0.1:5432/postgres), dropped at the end.
 * So far: the engine's durable stores in one process. Worker and web processes come with the cluster layer.
 *
 * - pg_round_trip: one prepared `SELECT 1` on a pooled connection (the floor of every step);
 * - pg_durable_chain_per_node: a 100-node linear chain's run (create, 102 node executions, the
 *   completed status) divided by 102, as durable_linear_chain_100_per_node is on SQLite. Node steps
 *   commit asynchronously, the create and the final status synchronously (see PgEngineDatabase);
 * - pg_durable_chain_300_per_node: the same for a 300-node chain (the run's two synchronous commits
 *   weigh a third as much per node);
 * - pg_durable_chain_per_node_sync_steps: the same with every step committed synchronously (fsync per
 *   step: what the disk costs);
 * - pg_durable_fan_out_100_join_per_run: START → fan → 100 parallel branches → join → END.
 */
const database = await PgTestDatabase.create();
try {
  const db = database.open({ maxConnections: 8 });
  const coordinator = new PgCoordinator(db);

  const trips = await time(2000, () => db.steps.query({ name: "bench_select_1", text: "SELECT 1" }), 200);
  report("pg_round_trip", median(trips) * 1000, "us");

  const chain = linearChain(100);
  const perChain = await time(100, () => chain.invoke(null, { coordinator }));
  report("pg_durable_chain_per_node", (median(perChain) * 1000) / 102, "us");
  // The run's two synchronous commits (create, final status) spread over three times the nodes.
  const longChain = linearChain(300);
  const perLongChain = await time(30, () => longChain.invoke(null, { coordinator }), 3);
  report("pg_durable_chain_300_per_node", (median(perLongChain) * 1000) / 302, "us");

  const fan = fanOut(100);
  report("pg_durable_fan_out_100_join_per_run", median(await time(20, () => fan.invoke(null, { coordinator }))), "ms");

  const syncCoordinator = new PgCoordinator(database.open({ stepCommit: "sync" }));
  const syncChain = await time(3, () => chain.invoke(null, { coordinator: syncCoordinator }), 1);
  report("pg_durable_chain_per_node_sync_steps", (median(syncChain) * 1000) / 102, "us");
} finally {
  await database[Symbol.asyncDispose]();
}

// Worker processes, leases, pg-boss dispatch and LISTEN/NOTIFY (server/cluster; see cluster-scale-bench.ts).
await clusterFigures();
