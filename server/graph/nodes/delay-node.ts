import { setTimeout as sleep } from "node:timers/promises";
import type { NodeContext } from "../context";
import { Node, type DeliveredInput, type NodeOptions } from "../node";

export interface DelayNodeOptions extends NodeOptions {
  ms: number;
  next?: string | null;
}

/** What a DelayNode delivers: the tick, and the input it held back (for pacing pipelines). */
export interface DelayTick {
  readonly tick: true;
  readonly sleptMs: number;
  readonly input: unknown;
}

/** Sleeps for a configured duration (abortable through the run's signal), then delivers a tick. */
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
    const tick: DelayTick = {
      tick: true,
      sleptMs: this.ms,
      input: input.length === 1 ? input[0].content : input.map((i) => i.content),
    };
    ctx.deliver(tick, this.next);
  }
}
