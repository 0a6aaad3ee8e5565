import { GraphPersistenceCoordinator, type OpenedInvocation } from "./coordinator";
import type { BeginInvocationArgs } from "./node-state-store";
import { newNullInvocationId, NullGraphInstanceStore, NullInvocation, NullNodeStateStore } from "./null-stores";
import type { DeliverRow, NewDeliverRow, NodeInvocation } from "./records";
import { TransientDeliverStore } from "./transient-deliver-store";

/**
 * The coordinator over the Null stores and the transient mailbox. Nothing it does can be observed
 * between two steps of a lifecycle call, so each call is one pass over the mailbox: an open claims
 * its inputs without a list of their ids, and a completion publishes its outbox without staging it
 * first or completing an invocation nobody keeps. The ledger's states are the base class's.
 * A wide fan-out opens and completes thousands of invocations per run; every object per call is
 * young garbage a collection may have to copy.
 */
export class NullCoordinator extends GraphPersistenceCoordinator {
  private readonly mailbox: TransientDeliverStore;

  constructor() {
    const mailbox = new TransientDeliverStore();
    super(new NullGraphInstanceStore(), new NullNodeStateStore(), mailbox);
    this.mailbox = mailbox;
  }

  override openInvocation(args: BeginInvocationArgs): OpenedInvocation {
    const id = newNullInvocationId();
    return new OpenedNullInvocation(id, args, this.mailbox.claimConsumable(args.instanceId, args.nodeId, id, args.binding));
  }

  /** The Null node store keeps no invocation to complete: only the outbox has an effect. */
  override completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[]): DeliverRow[] {
    return this.mailbox.publish(outbox, NullInvocation.openerOf(invocation));
  }
}

/** A Null invocation that is also its own opening: no `{ invocation, inputs }` object per open. */
class OpenedNullInvocation extends NullInvocation implements OpenedInvocation {
  constructor(
    invocationId: string,
    opener: BeginInvocationArgs,
    readonly inputs: DeliverRow[],
  ) {
    super(invocationId, opener);
  }
  get invocation(): NodeInvocation {
    return this;
  }
}
