import { AGENT_ERROR_CODES, AgentError } from "@/server/agent/errors";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { createAgentNodeType } from "@/server/agent/graph-node/agent-node-type";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import { OpenAICompatibleProvider } from "@/server/agent/llm/providers/openai-compatible-provider";
import { createBuiltinNodeRegistry } from "@/server/graph/spec/builtin-node-types";
import type { NodeRegistry } from "@/server/graph/spec/node-registry";

/** The model agent nodes talk to: any server speaking OpenAI chat completions. */
export interface ModelSettings {
  baseURL: string;
  model: string;
  apiKey?: string;
}

/** The model settings of the environment, or null when MODEX_LLM_BASE_URL or MODEX_LLM_MODEL is unset. */
export function modelSettingsOf(env: { MODEX_LLM_BASE_URL?: string; MODEX_LLM_MODEL?: string; MODEX_LLM_API_KEY?: string }): ModelSettings | null {
  if (!env.MODEX_LLM_BASE_URL || !env.MODEX_LLM_MODEL) return null;
  return { baseURL: env.MODEX_LLM_BASE_URL, model: env.MODEX_LLM_MODEL, apiKey: env.MODEX_LLM_API_KEY };
}

export const NO_MODEL_MESSAGE =
  "agent nodes need a model: set MODEX_LLM_BASE_URL and MODEX_LLM_MODEL (any OpenAI-compatible server: OpenAI, Ollama, vLLM, llama.cpp) and restart Modex";

export interface AgentNodesOptions {
  /** The model; null leaves agent nodes in specs valid but failing at run time with NO_MODEL_MESSAGE. */
  model?: ModelSettings | null;
  /** Replaces the model-backed provider (tests run a scripted one: the remote model is what cannot run here). */
  provider?: AgentNodeDeps["provider"];
  /** Replaces the chat's model-backed provider (tests). */
  chatProvider?: LlmProvider;
  /** Where each run's shared knowledge base lives (`<workspace>/.modex/graphs/instances/<id>/`). */
  workspace?: string;
}

/**
 * The app's node types: the engine's built-ins plus `agent`. Specs with agent nodes always compile, so
 * the editor and the Graphs list work without a model; running one without a model fails that node with
 * a message that says what to set.
 */
export function createAppNodeRegistry(options: AgentNodesOptions = {}): NodeRegistry {
  return createBuiltinNodeRegistry().register(
    createAgentNodeType({
      provider: options.provider ?? modelProvider(options.model ?? null),
      knowledge: options.workspace ? { workspace: options.workspace } : undefined,
    }),
  );
}

function modelProvider(settings: ModelSettings | null): AgentNodeDeps["provider"] {
  const byModel = new Map<string, LlmProvider>();
  return (config) => {
    if (!settings) throw new AgentError(AGENT_ERROR_CODES.PROVIDER_FAILED, NO_MODEL_MESSAGE);
    const model = config.model ?? settings.model;
    let provider = byModel.get(model);
    if (!provider) {
      provider = new OpenAICompatibleProvider({ baseURL: settings.baseURL, model, apiKey: settings.apiKey });
      byModel.set(model, provider);
    }
    return provider;
  };
}

/** The provider of the chat view: the configured model (or the one a test passes), else none. */
export function chatProviderOf(options: AgentNodesOptions = {}): { provider: LlmProvider | null; model: string | null } {
  if (options.chatProvider) return { provider: options.chatProvider, model: options.chatProvider.name };
  if (!options.model) return { provider: null, model: null };
  const { baseURL, model, apiKey } = options.model;
  return { provider: new OpenAICompatibleProvider({ baseURL, model, apiKey }), model };
}
