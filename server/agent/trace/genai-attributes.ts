/** OpenTelemetry GenAI semantic-convention attribute names (plus `modex.*` for what they do not cover). */
export const GenAI = {
  OPERATION_NAME: "gen_ai.operation.name",
  PROVIDER_NAME: "gen_ai.provider.name",
  AGENT_NAME: "gen_ai.agent.name",
  CONVERSATION_ID: "gen_ai.conversation.id",
  REQUEST_MODEL: "gen_ai.request.model",
  REQUEST_MAX_TOKENS: "gen_ai.request.max_tokens",
  REQUEST_TEMPERATURE: "gen_ai.request.temperature",
  RESPONSE_FINISH_REASONS: "gen_ai.response.finish_reasons",
  USAGE_INPUT_TOKENS: "gen_ai.usage.input_tokens",
  USAGE_OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  USAGE_REASONING_TOKENS: "gen_ai.usage.reasoning_tokens",
  USAGE_CACHE_READ_TOKENS: "gen_ai.usage.cache_read.input_tokens",
  USAGE_CACHE_CREATION_TOKENS: "gen_ai.usage.cache_creation.input_tokens",
  INPUT_MESSAGES: "gen_ai.input.messages",
  OUTPUT_MESSAGES: "gen_ai.output.messages",
  SYSTEM_INSTRUCTIONS: "gen_ai.system_instructions",
  TOOL_DEFINITIONS: "gen_ai.tool.definitions",
  TOOL_NAME: "gen_ai.tool.name",
  TOOL_CALL_ID: "gen_ai.tool.call.id",
  ERROR_TYPE: "error.type",
} as const;

export const Modex = {
  TURN_ID: "modex.turn.id",
  STOP_REASON: "modex.stop_reason",
  ITERATION: "modex.iteration",
  TURN_ATTEMPT: "modex.turn_attempt",
  TOOL_NAMES: "modex.tool.names",
  TOOL_ERROR_COUNT: "modex.tool.error_count",
  APPROVAL_DECISION: "modex.approval.decision",
  APPROVAL_ID: "modex.approval.id",
  SUSPENDED: "modex.suspended",
  /** What a resumed leg went on from: "approval" (a decision) or "restart" (its checkpoint after a restart). */
  RESUMED_FROM: "modex.resumed.from",
  /** The step (ReAct iteration) the turn picked up after: the last one finished, or the one waiting for approval. */
  RESUMED_STEP: "modex.resumed.step",
  /** How many times a restart resumed the turn, this one included. */
  RESUMED_COUNT: "modex.resumed.count",
  /** true: the span's gen_ai.usage.* counts are Modex's estimate, the provider reported none (llm/usage-estimate.ts). */
  USAGE_ESTIMATED: "modex.usage.estimated",
} as const;

export const GenAIOperation = {
  INVOKE_AGENT: "invoke_agent",
  CHAT: "chat",
  EXECUTE_TOOL: "execute_tool",
  CREATE_AGENT: "create_agent",
} as const;

/**
 * The `training_data` hook's tags on a turn's root span. `relevant` is the hook's verdict unless a person
 * chose (`chosen` true): then it is theirs. `messages` is [from, to): the turn's messages in its session's
 * stored conversation.
 */
export const Training = {
  RELEVANT: "gen_ai.training.relevant",
  CHOSEN: "modex.training.chosen",
  MESSAGES: "modex.training.messages",
} as const;
