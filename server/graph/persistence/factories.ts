import { GraphPersistenceCoordinator, type CoordinatorFactory } from "./coordinator";
import { InMemoryDeliverStore } from "./memory-deliver-store";
import { InMemoryGraphInstanceStore } from "./memory-instance-store";
import { InMemoryNodeStateStore } from "./memory-node-state-store";
import { NullCoordinator } from "./null-coordinator";

/**
 * Persists nothing. Delivers still need a mailbox to flow through, so it keeps a transient ledger
 * that forgets rows once consumed: content always travels through a store, never through dispatch.
 */
export function createNullCoordinator(): GraphPersistenceCoordinator {
  return new NullCoordinator();
}

export function createInMemoryCoordinator(): GraphPersistenceCoordinator {
  return new GraphPersistenceCoordinator(
    new InMemoryGraphInstanceStore(),
    new InMemoryNodeStateStore(),
    new InMemoryDeliverStore(),
  );
}

export class NullCoordinatorFactory implements CoordinatorFactory {
  create(): GraphPersistenceCoordinator {
    return createNullCoordinator();
  }
}

/** All coordinators it creates share one set of stores, as a database would. */
export class InMemoryCoordinatorFactory implements CoordinatorFactory {
  private readonly shared = createInMemoryCoordinator();
  create(): GraphPersistenceCoordinator {
    return this.shared;
  }
}
