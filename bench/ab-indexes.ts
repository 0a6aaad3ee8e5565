import pg from "pg";
import { PgCoordinator } from "../server/db/pg/pg-coordinator";
import { PgTestDatabase } from "../server/db/pg/testing/pg-test-database";
import { linearChain } from "../server/graph/testing/fixtures";
import { median, time } from "./measure";

const variants: Record<string, string[]> = {
  base: [],
  noDeliverId: [`DROP INDEX deliver_rows_deliver_id_key`],
  noBoth: [`DROP INDEX deliver_rows_deliver_id_key`, `DROP INDEX deliver_rows_claimed_idx`],
};
const dbs: { name: string; database: PgTestDatabase; coordinator: PgCoordinator }[] = [];
for (const [name, stmts] of Object.entries(variants)) {
  const database = await PgTestDatabase.create();
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  for (const s of stmts) await c.query(s);
  await c.end();
  dbs.push({ name, database, coordinator: new PgCoordinator(database.open({ maxConnections: 8 })) });
}
const chain = linearChain(100);
const results: Record<string, number[]> = {};
try {
  for (const d of dbs) await time(20, () => chain.invoke(null, { coordinator: d.coordinator }), 20);
  for (let round = 0; round < Number(process.env.ROUNDS ?? 6); round++) {
    for (const d of dbs) {
      const t = await time(30, () => chain.invoke(null, { coordinator: d.coordinator }), 2);
      (results[d.name] ??= []).push((median(t) * 1000) / 102);
    }
  }
  for (const [n, xs] of Object.entries(results)) console.log(n, xs.map((x) => x.toFixed(0)).join(" "), "median", median(xs).toFixed(0));
} finally {
  for (const d of dbs) await d.database[Symbol.asyncDispose]();
}
