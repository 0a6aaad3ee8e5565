import type { NodeContext } from "./context";
import { START } from "./names";
import { Node } from "./node";
import { resumeSignal } from "./payload";

/**
 * The entry node. Fresh run: delivers the graph input to every downstream edge. Resumed run
 * (`state.resumeTarget` set): clears the target and routes straight to it with the resume value,
 * so nothing between the entry and the suspended node runs again. A target of the form
 * `sub/inner` routes into a subgraph node, leaving `inner` for the subgraph's own entry. A recovery
 * that is not a resume clears the target instead (see `execute`), unless a resume had saved its answer
 * (`state.resumeWith`) and died before this node committed: then that answer is handed on.
 */
export class StartNode extends Node {
  constructor() {
    super(START);
  }

  execute(ctx: NodeContext): void {
    // The engine's own fields, written past the write check a library node's `ctx.state` goes through.
    const state = ctx.graph.state;
    const target = state.resumeTarget;
    // A resume's own answer, or the one a resume that died before this node committed had saved.
    const answer = ctx.graph.resume ?? state.resumeWith;
    if (state.resumeWith) delete state.resumeWith;
    if (target && !answer) {
      // Recovery of a run that died suspended, before anyone answered: there is no answer to hand on,
      // so nothing is routed; the suspended node runs again from its re-offered inputs and asks again.
      state.resumeTarget = null;
      return;
    }
    if (target) {
      const slash = target.indexOf("/");
      state.resumeTarget = slash === -1 ? null : target.slice(slash + 1);
      const head = slash === -1 ? target : target.slice(0, slash);
      ctx.deliverUnchecked(resumeSignal(answer?.value), head);
      return;
    }
    for (const next of ctx.binding.topology.successorsOf(START)) ctx.deliver(ctx.userInput, next);
  }
}
