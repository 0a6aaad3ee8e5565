import { describeCoordinatorConformance } from "./conformance/coordinator.conformance";
import { describeDeliverStoreConformance } from "./conformance/deliver-store.conformance";
import { describeInstanceStoreConformance } from "./conformance/instance-store.conformance";
import { describeNodeStateStoreConformance } from "./conformance/node-state-store.conformance";
import { GraphPersistenceCoordinator } from "./coordinator";
import { createInMemoryCoordinator } from "./factories";
import { InMemoryDeliverStore } from "./memory-deliver-store";
import { InMemoryGraphInstanceStore } from "./memory-instance-store";
import { InMemoryNodeStateStore } from "./memory-node-state-store";

describeInstanceStoreConformance("in-memory", () => new InMemoryGraphInstanceStore());
describeNodeStateStoreConformance("in-memory", () => new InMemoryNodeStateStore());
describeDeliverStoreConformance("in-memory", () => new InMemoryDeliverStore());
describeCoordinatorConformance("in-memory", createInMemoryCoordinator, {
  // A restart keeps the stores (the "database") and loses the coordinator.
  restart: (c) => new GraphPersistenceCoordinator(c.instances, c.nodes, c.delivers),
});
