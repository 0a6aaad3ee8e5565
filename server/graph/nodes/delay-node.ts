import { setTimeout as sleep } from "node:timers/promises";
import type { NodeContext } from "../context";
import { Node, type DeliveredInput, type NodeOptions } from "../node";

export interface DelayNodeOptions extends NodeOptions {
  ms: number;
  next?: string | null;
  /** A key of the run's input: when the input is an object with a number there, wait that many seconds instead. */
  secondsFromInput?: string | null;
}

/** The longest wait a delay takes (a day), as its `ms` / `seconds` config allows. */
export const MAX_DELAY_MS = 86_400_000;

/**
 * Sleeps for a configured duration (abortable through the run's signal), then delivers what it
 * received, unchanged: one input as it is, several as a list. A delay only paces a pipeline, so
 * delays in a row must not wrap the payload once per hop.
 */
export class DelayNode extends Node {
  private readonly ms: number;
  private readonly next: string | null;
  private readonly inputKey: string | null;

  constructor(name: string, options: DelayNodeOptions) {
    super(name, options);
    this.ms = options.ms;
    this.next = options.next ?? null;
    this.inputKey = options.secondsFromInput ?? null;
  }

  /**
   * How long to wait for a run whose input is `runInput`: the configured time, unless the node names an
   * input key and the input holds a number there (seconds, clamped to 0..a day). So one graph runs
   * quickly by default and slowly on demand (paced-pipeline: `{"pace_seconds": 10}` to try Pause).
   */
  durationFor(runInput: unknown): number {
    if (this.inputKey === null || !runInput || typeof runInput !== "object" || Array.isArray(runInput)) return this.ms;
    const seconds = (runInput as Record<string, unknown>)[this.inputKey];
    if (typeof seconds !== "number" || !Number.isFinite(seconds)) return this.ms;
    return Math.min(MAX_DELAY_MS, Math.max(0, Math.round(seconds * 1000)));
  }

  async execute(ctx: NodeContext, input: readonly DeliveredInput[]): Promise<void> {
    await sleep(this.durationFor(ctx.userInput.content), undefined, { signal: ctx.signal });
    ctx.deliver(input.length === 1 ? input[0].content : input.map((i) => i.content), this.next);
  }
}
