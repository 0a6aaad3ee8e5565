import type { ReactAgent } from "@/server/agent/react/react-agent";
import type { BusyInputMode } from "../chat/chat-event";
import { notFound } from "../errors";
import { CHAT_SYSTEM_PROMPT, type ChatAgentSource } from "../chat-service";
import type { AgentAssembler, ChatAgentRuntime } from "./agent-assembly";
import { AgentDefinitionSchema, type AgentDefinition } from "./agent-definition";
import type { AgentService } from "./agent-service";

/** The agent a chat talks to when it names none and no definition is called `assistant`. */
export const DEFAULT_CHAT_AGENT = "assistant";

/** Used when no `assistant` definition is stored (no config/agents folder): the chat still works. */
export const BUILTIN_ASSISTANT: AgentDefinition = AgentDefinitionSchema.parse({
  name: DEFAULT_CHAT_AGENT,
  description: "Modex's assistant: answers, plans with a todo list, lists and runs your graphs.",
  instructions: CHAT_SYSTEM_PROMPT,
  tools: ["todo_write", "list_graphs", "instance_status", "run_graph"],
});

/** The chat's agents: named definitions (latest revision when a chat starts), built by the one assembler. */
export class ChatAgents implements ChatAgentSource {
  constructor(private readonly deps: { agents: AgentService; assembler: AgentAssembler; fallback: AgentDefinition; defaultModel?: string | null }) {}

  defaultAgent(): string {
    return DEFAULT_CHAT_AGENT;
  }

  build(name: string | null, runtime: ChatAgentRuntime): { name: string; agent: ReactAgent } {
    const definition = this.definition(name);
    return { name: definition.name, agent: this.deps.assembler.forChat(definition, runtime) };
  }

  /** The definition's `busy_input` (latest revision: a chat loaded after an edit follows it); unset: the chat's default. */
  busyInput(name: string | null): BusyInputMode | undefined {
    try {
      return this.definition(name).busy_input;
    } catch {
      return undefined; // a deleted or unknown agent: its chats still list, with the default
    }
  }

  /** The definition's `model`, else the app's (MODEX_LLM_MODEL). */
  modelOf(name: string | null): string | null {
    try {
      return this.definition(name).model ?? this.deps.defaultModel ?? null;
    } catch {
      return this.deps.defaultModel ?? null;
    }
  }

  /** The latest revision of a named agent (NOT_FOUND when there is none), else the default one. */
  private definition(name: string | null): AgentDefinition {
    if (!name || name === DEFAULT_CHAT_AGENT) return this.deps.agents.find(DEFAULT_CHAT_AGENT)?.definition ?? this.deps.fallback;
    const found = this.deps.agents.find(name);
    if (!found) throw notFound("agent", name);
    return found.definition;
  }
}
