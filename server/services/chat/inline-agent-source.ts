import { ReactAgent } from "@/server/agent/react/react-agent";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import { todoWriteTool } from "@/server/agent/tools/builtin/todo-write-tool";
import type { Tool } from "@/server/agent/tools/tool";
import { notFound } from "../errors";
import type { ChatAgentSource } from "./chat-types";

export const CHAT_SYSTEM_PROMPT =
  "You are the assistant of Modex, a system for building, running and watching agent workflows as graphs. Answer clearly and briefly; use your todo list for multi-step work. " +
  "You can list the saved graphs, start a run of one (the user approves each run first) and look up an instance's status.";

/** One agent on one provider, without definitions (tests, and the app's fallback when none is named). */
export function inlineSource(provider: LlmProvider, tools: readonly Tool[]): ChatAgentSource {
  return {
    defaultAgent: () => null,
    build: (name, runtime) => {
      if (name !== null) throw notFound("agent", name);
      return { name: null, agent: new ReactAgent({ provider, tools: [todoWriteTool(), ...tools], systemPrompt: CHAT_SYSTEM_PROMPT, ...runtime }) };
    },
  };
}
