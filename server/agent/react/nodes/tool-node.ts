import { randomUUID } from "node:crypto";
import type { NodeContext } from "../../../graph/context";
import { Node, type DeliveredInput } from "../../../graph/node";
import { isResumeSignal } from "../../../graph/payload";
import { ApprovalDecisionSchema, type ApprovalDecision, type ApprovalTransaction } from "../../approval/approval-types";
import { snapshotTurn } from "../../approval/turn-snapshot";
import { AGENT_ERROR_CODES, AgentError } from "../../errors";
import type { ToolCall } from "../../llm/messages";
import type { TurnState } from "../../state/turn-state";
import { errorResult, type ToolResult } from "../../tools/tool-result";
import { ReactNode } from "../react-node-names";
import { routeFailureToAfter } from "./route-failure";
import type { ReactGraphState } from "../react-graph-state";
import { reactRuntime, type ReactGraphRuntime } from "../react-graph-runtime";

/**
 * Executes the pending tool calls in order, each through the TOOL_CALL interceptor chain. Before a call
 * whose tool needs approval it suspends: persists an ApprovalTransaction and a TurnSnapshot, then
 * `ctx.interrupt(tx)` (resumeTarget = TOOL). The resumed run enters here directly with the decision:
 * approved → the tool runs; denied → a denial result the model reads. The approval check sits before the
 * chain and the decision arrives as the resume value, so no interceptor or control command can approve;
 * only the server-side `autoApprove` dependency (the application's extensions) can waive the question.
 * Tool errors are results, not failures; an unexpected failure here (a store down) routes to AFTER.
 */
export class ToolNode extends Node<ReactGraphState> {
  constructor() {
    super(ReactNode.TOOL, { description: "execute tool calls" });
  }

  execute(ctx: NodeContext<ReactGraphState>, input: readonly DeliveredInput[]): Promise<void> {
    return routeFailureToAfter(ctx, () => this.runBatch(ctx, input));
  }

  private async runBatch(ctx: NodeContext<ReactGraphState>, input: readonly DeliveredInput[]): Promise<void> {
    const rt = reactRuntime(ctx);
    const turn = ctx.state.turn;
    let decision = resumeDecision(input);
    if (!decision) await rt.dispatchHook("BEFORE_TOOL_EXECUTION", turn, { calls: turn.toolBatchCalls });
    while (turn.pendingToolCalls.length > 0) {
      const call = turn.pendingToolCalls[0];
      let result: ToolResult;
      if (rt.deps.registry.needsApproval(call.name, call.arguments)) {
        if (decision) {
          result = await applyDecision(ctx, call, decision);
          decision = undefined;
        } else if (await rt.deps.autoApprove?.(call, turn)) {
          result = await rt.deps.tools.execute(call, turn, rt.signal);
        } else {
          return suspend(ctx, call);
        }
      } else {
        result = await rt.deps.tools.execute(call, turn, rt.signal);
      }
      record(rt, turn, result);
    }
    await rt.dispatchHook("AFTER_TOOL_EXECUTION", turn, { calls: turn.toolBatchCalls, results: turn.toolBatchResults });
    await rt.dispatchHook("AFTER_ITERATION", turn, { iteration: turn.iteration });
    ctx.deliver(null, ReactNode.LLM);
  }
}

function resumeDecision(input: readonly DeliveredInput[]): ApprovalDecision | undefined {
  const signal = input.find((i) => isResumeSignal(i.content));
  if (!signal || !isResumeSignal(signal.content)) return undefined;
  return ApprovalDecisionSchema.parse(signal.content.value);
}

async function suspend(ctx: NodeContext<ReactGraphState>, call: ToolCall): Promise<never> {
  const rt = reactRuntime(ctx);
  const turn = ctx.state.turn;
  const transaction: ApprovalTransaction = {
    id: randomUUID(),
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    call,
    status: "pending",
    createdAt: rt.now(),
  };
  turn.pendingApproval = transaction;
  await rt.deps.approvals.save(transaction);
  await rt.deps.snapshots.save(snapshotTurn(turn, ReactNode.TOOL, rt.now()));
  rt.emit({ type: "approval_requested", turnId: turn.turnId, transaction });
  return ctx.interrupt(transaction);
}

async function applyDecision(ctx: NodeContext<ReactGraphState>, call: ToolCall, decision: ApprovalDecision): Promise<ToolResult> {
  const rt = reactRuntime(ctx);
  const turn = ctx.state.turn;
  const pending = turn.pendingApproval;
  if (!pending || pending.id !== decision.transactionId || pending.call.id !== call.id) {
    throw new AgentError(AGENT_ERROR_CODES.INVALID_STATE, `approval decision ${decision.transactionId} does not match the suspended call ${call.id}`);
  }
  turn.pendingApproval = undefined;
  if (!decision.approved) {
    const why = decision.reason ? `: ${decision.reason}` : "";
    return errorResult(call.id, call.name, `The user denied this ${call.name} call${why}. Do not retry it without asking.`);
  }
  return rt.deps.tools.execute(call, turn, rt.signal);
}

function record(rt: ReactGraphRuntime, turn: TurnState, result: ToolResult): void {
  turn.pendingToolCalls.shift();
  turn.toolBatchResults.push(result);
  turn.messages.push({ role: "tool", toolCallId: result.callId, name: result.name, content: result.content, isError: result.isError });
  rt.emit({ type: "tool_result", turnId: turn.turnId, result });
}
