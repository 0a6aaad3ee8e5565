import type { HookRunner } from "../hook-runner";
import { DeliverRetryHook } from "./deliver-retry-hook";
import { LengthGuardHook } from "./length-guard-hook";
import { TODO_CONTINUATION_PRIORITY, TodoContinuationHook } from "./todo-continuation-hook";

/**
 * The continuation (todo, deliver-retry) and length-guard hooks every agent that owns a turn lifecycle gets, with the same
 * priorities wherever it is called. Registered as defaults: a hook of the same name already registered
 * (roster-declared) wins.
 */
export function registerTreeAwareHooks(runner: HookRunner, options: { deliverTool?: string } = {}): HookRunner {
  runner.registerDefault({ hook: new TodoContinuationHook(), priority: TODO_CONTINUATION_PRIORITY, name: "todo_continuation" });
  // Graph-node agents only: they hand work on through a deliver tool.
  if (options.deliverTool) runner.registerDefault({ hook: new DeliverRetryHook(options.deliverTool), name: "deliver_retry" });
  runner.registerDefault({ hook: new LengthGuardHook(), name: "length_guard" });
  return runner;
}
