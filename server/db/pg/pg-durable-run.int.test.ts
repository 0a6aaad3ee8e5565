import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { END } from "@/server/graph/names";
import { linearChain } from "@/server/graph/testing/fixtures";
import { recoverInstance } from "../testing/durable-run";
import { durableRunTests } from "../testing/durable-run-suite";
import { PgCoordinator } from "./pg-coordinator";
import { PgTestDatabase } from "./testing/pg-test-database";

/**
 * The engine's fixture graphs on PostgreSQL, read back through new connections (another process).
 * One database for the file; every test works on instances of its own.
 */
describe("durable runs on PostgreSQL", () => {
  let database: PgTestDatabase;
  let coordinator: PgCoordinator;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
    coordinator = new PgCoordinator(database.open());
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });

  /** New pools on the same database: what another process would read. */
  const reopened = () => new PgCoordinator(database.open());

  durableRunTests({ coordinator: () => coordinator, reopened });

  it("recovers a near-complete instance (END committed, the process died before the status change): nothing runs again", async () => {
    // The crash lands after END's completion committed (PgCoordinator holds a completion until the next
    // statement), at the first step of finishing the instance.
    class DiesWhileFinishing extends PgCoordinator {
      override async checkpointState(): Promise<never> {
        await this.flush();
        throw new Error("killed");
      }
    }
    const chain = linearChain(2);
    const ctx = chain.createContext({ coordinator: new DiesWhileFinishing(database.open()), input: "go" });
    await expect(chain.run(ctx)).rejects.toThrow("killed");

    const after = reopened();
    expect(await after.instances.load(ctx.instanceId)).toMatchObject({ status: "running" });
    const result = await recoverInstance(linearChain(2), after, ctx.instanceId);
    expect(result).toMatchObject({ status: "completed", reachedEnd: true });
    expect(result.result).toEqual([{ content: null, source: "n1" }]);
    expect((await after.nodes.listByInstance(ctx.instanceId)).map((i) => i.nodeName)).toEqual(["__start__", "n0", "n1", END]);
    expect((await after.instances.ioRecords(ctx.instanceId))[0].output).toEqual([{ content: null, source: "n1" }]);
  });

  it("a run whose database connection is refused ends as a crash (abandonsRun), leaving the last commit", async () => {
    const broken = new PgCoordinator(
      (await import("./pg-database")).openPgEngineDatabase({ url: "postgresql://postgres@127.0.0.1:1/none", maxConnections: 1 }),
    );
    const error = await linearChain(1).invoke("x", { coordinator: broken }).catch((e: unknown) => e);
    expect(broken.abandonsRun(error)).toBe(true);
    await broken.db.close();
  });
});
