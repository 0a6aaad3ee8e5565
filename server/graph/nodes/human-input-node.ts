import type { NodeContext } from "../context";
import { Node, type DeliveredInput, type NodeOptions } from "../node";
import { isResumeSignal } from "../payload";

export interface HumanInputNodeOptions extends NodeOptions {
  prompt: string;
  next?: string | null;
}

/** The interrupt payload a HumanInputNode raises: what the UI or CLI shows the human. */
export interface HumanInputRequest {
  readonly kind: "human_input";
  readonly node: string;
  readonly prompt: string;
  /** The upstream content that led here, for context. */
  readonly context: readonly unknown[];
}

/**
 * Suspends the run with a prompt; on resume it receives the human's answer (a resume signal from
 * the entry node) and delivers it downstream. Nothing upstream runs again.
 */
export class HumanInputNode extends Node {
  readonly prompt: string;
  private readonly next: string | null;

  constructor(name: string, options: HumanInputNodeOptions) {
    super(name, options);
    this.prompt = options.prompt;
    this.next = options.next ?? null;
  }

  execute(ctx: NodeContext, input: readonly DeliveredInput[]): void {
    const answer = input.find((i) => isResumeSignal(i.content));
    if (answer && isResumeSignal(answer.content)) {
      ctx.deliver(answer.content.value, this.next);
      return;
    }
    const request: HumanInputRequest = {
      kind: "human_input",
      node: ctx.binding.name,
      prompt: this.prompt,
      context: input.map((i) => i.content),
    };
    ctx.interrupt(request);
  }
}
