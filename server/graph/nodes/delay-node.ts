import { setTimeout as sleep } from "node:timers/promises";
import type { NodeContext } from "../context";
import { Node, type DeliveredInput, type NodeOptions } from "../node";

export interface DelayNodeOptions extends NodeOptions {
  ms: number;
  next?: string | null;
}

/**
 * Sleeps for a configured duration (abortable through the run's signal), then delivers what it
 * received, unchanged: one input as it is, several as a list. A delay only paces a pipeline, so
 * delays in a row must not wrap the payload once per hop.
 */
export class DelayNode extends Node {
  private readonly ms: number;
  private readonly next: string | null;

  constructor(name: string, options: DelayNodeOptions) {
    super(name, options);
    this.ms = options.ms;
    this.next = options.next ?? null;
  }

  async execute(ctx: NodeContext, input: readonly DeliveredInput[]): Promise<void> {
    await sleep(this.ms, undefined, { signal: ctx.signal });
    ctx.deliver(input.length === 1 ? input[0].content : input.map((i) => i.content), this.next);
  }
}
