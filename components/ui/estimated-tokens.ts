/**
 * Why a token count reads "~N … (estimated)", one wording wherever tokens are shown (chat, traces, the
 * instance view): Modex estimated it because the provider reported no usage (server/agent/llm/usage-estimate.ts).
 */
export const ESTIMATED_TOKENS_TITLE =
  "Estimated at about 4 characters a token: the model's server reports usage only when a stream ends, and this one was cut short (or never reported it)";

/** The same for a total some of whose calls were estimated. */
export const INCLUDES_ESTIMATES_TITLE =
  "Includes Modex's estimate (about 4 characters a token) for model calls whose provider reported no usage, such as a stream cut short by a stop";
