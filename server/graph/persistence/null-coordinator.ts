import { GraphPersistenceCoordinator, type OpenedInvocation } from "./coordinator";
import type { BeginInvocationArgs } from "./node-state-store";
import { NullGraphInstanceStore, NullInvocation, NullNodeStateStore } from "./null-stores";
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
  private readonly invocations: NullNodeStateStore;
  private readonly mailbox: TransientDeliverStore;

  constructor() {
    const invocations = new NullNodeStateStore();
    const mailbox = new TransientDeliverStore();
    super(new NullGraphInstanceStore(), invocations, mailbox);
    this.invocations = invocations;
    this.mailbox = mailbox;
  }

  override openInvocation(args: BeginInvocationArgs): OpenedInvocation {
    const invocation = this.invocations.begin(args);
    return { invocation, inputs: this.mailbox.claimConsumable(args.instanceId, args.nodeId, invocation.invocationId, args.binding) };
  }

  /** The Null node store keeps no invocation to complete: only the outbox has an effect. */
  override completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[]): DeliverRow[] {
    return this.mailbox.publish(outbox, NullInvocation.openerOf(invocation));
  }
}
