import type { NodeContext } from "./context";
import { newNodeId } from "./ids";
import type { NodePolicy } from "./node-policy";
import type { DeliverRow } from "./persistence/records";
import type { GraphStateSchema } from "./state";

/**
 * ON_ALL_PREDS (default): a node instance starts once every activated predecessor that could still
 * reach it has dispatched. ON_RECEIVE: starts on the first delivery (deprecated; compile warns).
 */
export type TriggerMode = "ON_ALL_PREDS" | "ON_RECEIVE";

/**
 * One consumed ledger row as a node sees it: the claimed row itself, read-only. A status of
 * CONSUMED_PENDING means the row is re-offered after a crash of an earlier consumer.
 * Not a copy: a wide fan-out's join takes 10,000 rows, and a copy of each was young garbage.
 */
export type DeliveredInput = Pick<DeliverRow, "deliverId" | "sourceNode" | "content" | "status">;

export interface NodeOptions {
  triggerMode?: TriggerMode;
  description?: string;
  /** Retry and timeout (see node-policy.ts); none: a failure fails the run, no deadline. */
  policy?: NodePolicy;
}

/**
 * A unit of work. `execute` returns nothing: a node routes only by delivering. The engine wraps
 * every execution in the fixed lifecycle of `node-lifecycle.ts`.
 */
export abstract class Node<S extends GraphStateSchema = GraphStateSchema> {
  readonly id: string = newNodeId();
  readonly triggerMode: TriggerMode;
  readonly description: string | undefined;
  readonly policy: NodePolicy | undefined;

  constructor(
    readonly name: string,
    options: NodeOptions = {},
  ) {
    this.triggerMode = options.triggerMode ?? "ON_ALL_PREDS";
    this.description = options.description;
    this.policy = options.policy;
  }

  abstract execute(ctx: NodeContext<S>, input: readonly DeliveredInput[]): void | Promise<void>;

  /**
   * Turns the claimed rows into this node's input. Override for consumer-side idempotency, e.g.
   * dropping re-offered CONSUMED_PENDING rows whose effect is already kept elsewhere.
   */
  integrate(rows: readonly DeliverRow[]): readonly DeliveredInput[] {
    return rows;
  }

  /** Routing: `ctx.deliver` with the spec's argument order. */
  protected deliver(content: unknown, nextNode: string | null, ctx: NodeContext<S>): string {
    return ctx.deliver(content, nextNode);
  }
}
