import { z } from "zod";

/** One tool call as the model asked for it; `arguments` is the raw JSON text the model produced. */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ChatMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    reasoning: z.string().optional(),
    toolCalls: z.array(ToolCallSchema).optional(),
    /** Set on the message kept from a stream cut short by a cancel (see INTERRUPTED_PARTIAL). */
    interrupted: z.boolean().optional(),
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;
export type ToolMessage = Extract<ChatMessage, { role: "tool" }>;

/** A tool as the model sees it: name, description and a JSON schema for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** Overrides the provider's configured model. */
  model?: string;
  maxTokens?: number;
  temperature?: number;
}
