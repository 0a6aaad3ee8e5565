import type { NodeContext } from "./context";
import { START } from "./names";
import { Node } from "./node";
import { resumeSignal } from "./payload";

/**
 * The entry node. Fresh run: delivers the graph input to every downstream edge. Resumed run
 * (`state.resumeTarget` set): clears the target and routes straight to it with the resume value,
 * so nothing between the entry and the suspended node runs again. A target of the form
 * `sub/inner` routes into a subgraph node, leaving `inner` for the subgraph's own entry. A recovery
 * that is not a resume clears the target instead (see `execute`).
 */
export class StartNode extends Node {
  constructor() {
    super(START);
  }

  execute(ctx: NodeContext): void {
    const target = ctx.state.resumeTarget;
    if (target && !ctx.graph.resume) {
      // Recovery of a run that died suspended, before anyone answered: there is no answer to hand on,
      // so nothing is routed; the suspended node runs again from its re-offered inputs and asks again.
      ctx.state.resumeTarget = null;
      return;
    }
    if (target) {
      const slash = target.indexOf("/");
      ctx.state.resumeTarget = slash === -1 ? null : target.slice(slash + 1);
      const head = slash === -1 ? target : target.slice(0, slash);
      ctx.deliverUnchecked(resumeSignal(ctx.graph.resume?.value), head);
      return;
    }
    for (const next of ctx.binding.topology.successorsOf(START)) ctx.deliver(ctx.userInput, next);
  }
}
