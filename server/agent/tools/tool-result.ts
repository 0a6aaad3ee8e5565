import { z } from "zod";

/**
 * What one tool call gives back to the model. The TOOL_CALL interceptor scope guarantees every call ends
 * in a value that passes `ToolResultSchema` — a thrown error becomes `isError: true`, never a crash.
 */
export const ToolResultSchema = z.object({
  callId: z.string(),
  name: z.string(),
  content: z.string(),
  isError: z.boolean(),
  /** Path of the full output when ToolResultLimitInterceptor truncated it. */
  overflowPath: z.string().optional(),
  timedOut: z.boolean().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;

export function okResult(callId: string, name: string, content: string): ToolResult {
  return { callId, name, content, isError: false };
}

export function errorResult(callId: string, name: string, content: string): ToolResult {
  return { callId, name, content, isError: true };
}

export function isLegalToolResult(value: unknown): value is ToolResult {
  return ToolResultSchema.safeParse(value).success;
}
