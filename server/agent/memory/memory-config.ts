import { z } from "zod";

/**
 * The context budget when nothing better is known: Modex keeps no table of model context sizes, so the
 * default is a conservative 32,000 tokens — under the window of every current chat model — which leaves
 * room for the reply and for the cheap token estimate's error (llm/token-estimate.ts).
 */
export const DEFAULT_MAX_CONTEXT_TOKENS = 32_000;
/** Messages a cleanup keeps verbatim at the end of the context (fewer when they alone break the budget). */
export const DEFAULT_KEEP_RECENT_MESSAGES = 12;

/** How an agent keeps a long conversation within its model's context (agent YAML `memory:`). */
export const MemoryConfigSchema = z
  .object({
    enabled: z.boolean().default(true).describe("Keep long chats within the context budget (off: every turn sends the whole conversation)."),
    max_context_tokens: z
      .number()
      .int()
      .min(500)
      .max(2_000_000)
      .default(DEFAULT_MAX_CONTEXT_TOKENS)
      .describe("Estimated tokens of a model request (system prompt, tools and messages) above which older messages are summarized."),
    keep_recent_messages: z.number().int().min(1).max(500).default(DEFAULT_KEEP_RECENT_MESSAGES).describe("Latest messages kept verbatim when older ones are summarized (fewer if they alone exceed the budget)."),
    consolidate: z.boolean().default(true).describe("Summarize the older messages with one model call (false: drop them, leaving a marker)."),
  })
  .strict();

export type MemoryConfigInput = z.input<typeof MemoryConfigSchema>;
export type MemoryConfig = z.output<typeof MemoryConfigSchema>;

export const DEFAULT_MEMORY_CONFIG: MemoryConfig = MemoryConfigSchema.parse({});
