import type { HookSpec } from "../hook/hook-runner";
import type { Interceptor } from "../interceptor/interceptor";
import type { LiveScope } from "../interceptor/interceptor-scope";
import type { ToolCall } from "../llm/messages";
import type { TurnState } from "../state/turn-state";
import { EXTENSION_HOOK_PRIORITY, ExtensionHook } from "./extension-hook";
import { ExtensionInvoker } from "./extension-invoker";
import type { ExtensionManager } from "./extension-manager";
import { ExtensionStreamInterceptor } from "./extension-stream-interceptor";
import { ExtensionToolInterceptor } from "./extension-tool-interceptor";
import { lastUserMessage, turnExtensionContext } from "./turn-extension-context";

export interface AgentExtensionWiring {
  hook: HookSpec;
  interceptors: Array<{ interceptor: Interceptor; scope: LiveScope }>;
  /** APPROVAL_REQUIRED, asked before a call that needs approval suspends the turn. */
  autoApprove: (call: ToolCall, turn: TurnState) => Promise<boolean>;
}

/**
 * Everything the ReAct agent needs to run a manager's extensions (its `extensions` option uses this).
 * `agentId`: the agent's name, which every extension call of this agent sees as `ctx.agentId`.
 */
export function wireExtensions(manager: ExtensionManager, options: { agentId?: string } = {}): AgentExtensionWiring {
  const invoker = new ExtensionInvoker(manager, options);
  return {
    hook: { hook: new ExtensionHook(invoker), name: "extensions", priority: EXTENSION_HOOK_PRIORITY },
    interceptors: [
      { interceptor: new ExtensionToolInterceptor(invoker), scope: "TOOL_CALL" },
      { interceptor: new ExtensionStreamInterceptor(invoker), scope: "LLM_STREAM" },
    ],
    autoApprove: (call, turn) => autoApproves(invoker, call, turn),
  };
}

/**
 * Only an explicit `true` approves (not merely truthy): this skips a human decision, so a stray value
 * from a misbehaving extension must fall through to asking the user.
 */
async function autoApproves(invoker: ExtensionInvoker, call: ToolCall, turn: TurnState): Promise<boolean> {
  if (!invoker.handles("APPROVAL_REQUIRED")) return false;
  const ctx = turnExtensionContext(turn, "APPROVAL_REQUIRED", { toolCall: { ...call }, message: lastUserMessage(turn.messages) ?? "" });
  return (await invoker.invoke("APPROVAL_REQUIRED", ctx)) === true;
}
