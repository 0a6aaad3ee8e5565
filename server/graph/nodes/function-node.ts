import { isPromise } from "../awaitable";
import type { NodeContext } from "../context";
import { Node, type DeliveredInput, type NodeOptions } from "../node";
import type { GraphStateSchema } from "../state";

export type NodeFunction<S extends GraphStateSchema> = (
  ctx: NodeContext<S>,
  input: readonly DeliveredInput[],
) => unknown | Promise<unknown>;

export interface FunctionNodeOptions extends NodeOptions {
  /** Where the result goes; null resolves through topology (single edge, or END). */
  next?: string | null;
}

/**
 * Wraps a sync or async function as a node and delivers its result. A function that routes by
 * itself (calling `ctx.deliver`) returns undefined, and nothing more is delivered.
 */
export class FunctionNode<S extends GraphStateSchema = GraphStateSchema> extends Node<S> {
  private readonly next: string | null;

  constructor(
    name: string,
    private readonly fn: NodeFunction<S>,
    options: FunctionNodeOptions = {},
  ) {
    super(name, options);
    this.next = options.next ?? null;
  }

  execute(ctx: NodeContext<S>, input: readonly DeliveredInput[]): void | Promise<void> {
    const result = this.fn(ctx, input);
    if (isPromise(result)) return result.then((value) => this.route(ctx, value));
    this.route(ctx, result);
  }

  private route(ctx: NodeContext<S>, result: unknown): void {
    if (result !== undefined) ctx.deliver(result, this.next);
  }
}
