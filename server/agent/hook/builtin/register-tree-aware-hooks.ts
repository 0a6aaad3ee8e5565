import type { TodoStore } from "../../tools/builtin/todo-store";
import type { HookRunner } from "../hook-runner";
import { LengthGuardHook } from "./length-guard-hook";
import { TODO_CONTINUATION_PRIORITY, TodoContinuationHook } from "./todo-continuation-hook";

/**
 * The continuation and length-guard hooks every agent that owns a turn lifecycle gets, with the same
 * priorities wherever it is called. Registered as defaults: a hook of the same name already registered
 * (roster-declared) wins.
 */
export function registerTreeAwareHooks(runner: HookRunner, options: { todoStore: TodoStore }): HookRunner {
  runner.registerDefault({ hook: new TodoContinuationHook(options.todoStore), priority: TODO_CONTINUATION_PRIORITY, name: "todo_continuation" });
  runner.registerDefault({ hook: new LengthGuardHook(), name: "length_guard" });
  return runner;
}
