import type { HookContext } from "../hook-context";
import { StartNodeTurnHook } from "../hook-contracts";
import { systemReminder } from "./system-reminder";

/** At fresh-turn start, tells the model the current time, to the second (UTC, ISO 8601). */
export class CurrentTimeHook extends StartNodeTurnHook {
  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  startNodeTurn(ctx: HookContext<"START_NODE_TURN">): void {
    const iso = new Date(Math.floor(this.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    ctx.turn.messages.push(systemReminder(`Current time: ${iso}`));
  }
}
