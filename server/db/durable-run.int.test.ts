import { afterEach, beforeEach, describe } from "vitest";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { durableRunTests } from "./testing/durable-run-suite";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** The engine's fixture graphs on a SQLite file, read back through a fresh connection (a new process). */
describe("durable runs on SQLite", () => {
  let temp: TempDatabase;
  let coordinator: SqliteCoordinator;
  beforeEach(() => {
    temp = tempDatabase();
    coordinator = new SqliteCoordinator(temp.db);
  });
  afterEach(() => temp[Symbol.dispose]());

  durableRunTests({
    coordinator: () => coordinator,
    reopened: () => new SqliteCoordinator(temp.reopen()),
    flush: (c) => (c as SqliteCoordinator).flush(),
  });
});
