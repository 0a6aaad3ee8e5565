import { describeError } from "../errors";
import { consoleLogger, type AgentLogger } from "../logger";
import type { TurnState } from "../state/turn-state";
import type { MemoryHook, MemoryHookContext, MemoryHookPayloads, MemoryHookPoint } from "./memory-hook";

/**
 * Runs the memory hooks, in registration order. Memory hooks observe and decorate a cleanup; none may
 * stop one: a hook that throws is logged and the others still run (a broken trace hook must not cost
 * the chat its context).
 */
export class MemoryHookRunner {
  private readonly hooks: MemoryHook[] = [];

  constructor(private readonly logger: AgentLogger = consoleLogger) {}

  register(hook: MemoryHook): this {
    this.hooks.push(hook);
    return this;
  }

  get size(): number {
    return this.hooks.length;
  }

  async dispatch<P extends MemoryHookPoint>(point: P, turn: TurnState, payload: MemoryHookPayloads[P]): Promise<void> {
    const ctx: MemoryHookContext<P> = { point, turn, payload };
    for (const hook of this.hooks) {
      const fn = hook[point] as ((c: MemoryHookContext<P>) => void | Promise<void>) | undefined;
      if (!fn) continue;
      try {
        await fn.call(hook, ctx);
      } catch (e) {
        this.logger.warn(`memory hook ${hook.name} failed at ${point} (ignored): ${describeError(e)}`, { turnId: turn.turnId });
      }
    }
  }
}
