import { DemoModelProvider } from "@/server/agent/demo/demo-model-provider";
import { DEMO_MODEL_NAME } from "@/server/agent/demo/demo-policy";
import { AGENT_ERROR_CODES, AgentError } from "@/server/agent/errors";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import { OpenAICompatibleProvider } from "@/server/agent/llm/providers/openai-compatible-provider";

/** The model agents talk to: any server speaking OpenAI chat completions, or the offline demo model. */
export interface ModelSettings {
  /** The server; unused by the demo model. */
  baseURL: string;
  model: string;
  apiKey?: string;
}

export { DEMO_MODEL_NAME };

export const NO_MODEL_MESSAGE =
  "agent nodes need a model: set MODEX_LLM_BASE_URL and MODEX_LLM_MODEL (any OpenAI-compatible server: OpenAI, Ollama, vLLM, llama.cpp), " +
  `or MODEX_LLM_MODEL=${DEMO_MODEL_NAME} for the offline demo model (no language model: it follows the tool protocol so the examples run), and restart Modex`;

/**
 * The model settings of the environment: MODEX_LLM_MODEL=modex-demo alone selects the offline demo model;
 * otherwise both MODEX_LLM_BASE_URL and MODEX_LLM_MODEL are needed, else there is no model (null).
 */
export function modelSettingsOf(env: { MODEX_LLM_BASE_URL?: string; MODEX_LLM_MODEL?: string; MODEX_LLM_API_KEY?: string }): ModelSettings | null {
  if (env.MODEX_LLM_MODEL === DEMO_MODEL_NAME) return { baseURL: env.MODEX_LLM_BASE_URL ?? "", model: DEMO_MODEL_NAME };
  if (!env.MODEX_LLM_BASE_URL || !env.MODEX_LLM_MODEL) return null;
  return { baseURL: env.MODEX_LLM_BASE_URL, model: env.MODEX_LLM_MODEL, apiKey: env.MODEX_LLM_API_KEY };
}

export const isDemoModel = (settings: ModelSettings | null): boolean => settings?.model === DEMO_MODEL_NAME;

/**
 * One provider per model name on the configured server (an agent's `model:` picks another name there).
 * With the demo model configured, every agent gets it, whatever its `model:` says: the demo is opt-in
 * for the whole server, and names of a remote server's models mean nothing to it.
 */
export class ModelProviders {
  private readonly byModel = new Map<string, LlmProvider>();

  constructor(readonly settings: ModelSettings | null) {}

  get configured(): boolean {
    return this.settings !== null;
  }

  /** What the chat shows as its model: the name, labelled when it is the demo. */
  get label(): string | null {
    if (!this.settings) return null;
    return isDemoModel(this.settings) ? `${DEMO_MODEL_NAME} (offline demo model)` : this.settings.model;
  }

  /** The provider of `model` (default: the configured one); throws NO_MODEL_MESSAGE without a model. */
  for(model?: string): LlmProvider {
    const settings = this.settings;
    if (!settings) throw new AgentError(AGENT_ERROR_CODES.PROVIDER_FAILED, NO_MODEL_MESSAGE);
    const name = isDemoModel(settings) ? DEMO_MODEL_NAME : (model ?? settings.model);
    let provider = this.byModel.get(name);
    if (!provider) {
      provider = name === DEMO_MODEL_NAME ? new DemoModelProvider() : new OpenAICompatibleProvider({ baseURL: settings.baseURL, model: name, apiKey: settings.apiKey });
      this.byModel.set(name, provider);
    }
    return provider;
  }
}
