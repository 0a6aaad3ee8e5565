import type { HookContext } from "../hook/hook-context";
import { StartNodeTurnHook } from "../hook/hook-contracts";
import { GenAI, GenAIOperation } from "./genai-attributes";
import type { SpanWriter } from "./span-writer";
import { ROOT_KEY, traceSessionOf } from "./trace-session";

/** Marks the agent's (re)start of a turn: an instant span under the root. */
export class AgentStartSpanHook extends StartNodeTurnHook {
  constructor(
    private readonly writer: SpanWriter,
    private readonly agentName: string = "react",
  ) {
    super();
  }

  startNodeTurn(ctx: HookContext<"START_NODE_TURN">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    const now = this.writer.now();
    this.writer.start(session, ctx.turn, {
      key: "agent_start",
      name: `agent_start ${this.agentName}`,
      parent: ROOT_KEY,
      startTime: now,
      attributes: { [GenAI.AGENT_NAME]: this.agentName, [GenAI.OPERATION_NAME]: GenAIOperation.INVOKE_AGENT },
    });
    this.writer.end(session, "agent_start", { endTime: now, status: { code: "ok" } });
  }
}
