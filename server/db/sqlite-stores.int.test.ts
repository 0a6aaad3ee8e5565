import { describeCoordinatorConformance } from "@/server/graph/persistence/conformance/coordinator.conformance";
import { describeDeliverStoreConformance } from "@/server/graph/persistence/conformance/deliver-store.conformance";
import { describeInstanceStoreConformance } from "@/server/graph/persistence/conformance/instance-store.conformance";
import { describeNodeStateStoreConformance } from "@/server/graph/persistence/conformance/node-state-store.conformance";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { SqliteDeliverStore } from "./sqlite-deliver-store";
import { SqliteGraphInstanceStore } from "./sqlite-instance-store";
import { SqliteNodeStateStore } from "./sqlite-node-state-store";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** Each test gets a fresh database file; the subject remembers its file so cleanup can remove it. */
function onTempFiles<T extends object>(create: (temp: TempDatabase) => T) {
  // Typed on `object`: the suites hand back the subject as its interface type.
  const files = new WeakMap<object, TempDatabase>();
  return {
    make: () => {
      const temp = tempDatabase();
      const subject = create(temp);
      files.set(subject, temp);
      return subject;
    },
    files,
    cleanup: (subject: object): void => files.get(subject)?.[Symbol.dispose](),
  };
}

const instances = onTempFiles((t) => new SqliteGraphInstanceStore(t.db));
describeInstanceStoreConformance("sqlite", instances.make, { cleanup: instances.cleanup });

const nodes = onTempFiles((t) => new SqliteNodeStateStore(t.db));
describeNodeStateStoreConformance("sqlite", nodes.make, { cleanup: nodes.cleanup });

const delivers = onTempFiles((t) => new SqliteDeliverStore(t.db));
describeDeliverStoreConformance("sqlite", delivers.make, { cleanup: delivers.cleanup });

const coordinators = onTempFiles((t) => new SqliteCoordinator(t.db));
describeCoordinatorConformance("sqlite", coordinators.make, {
  cleanup: coordinators.cleanup,
  // A restart closes the connection and opens a new coordinator on the same file.
  restart: (crashed: object) => {
    const temp = coordinators.files.get(crashed)!;
    const next = new SqliteCoordinator(temp.reopen());
    coordinators.files.set(next, temp);
    return next;
  },
});
