/** Why an MCP tool call did not reach or finish on its server; the agent reads the message as a tool error. */
export const MCP_ERROR_CODES = {
  /** The server failed to start or crashed, and its next start is not due yet (or failed again). */
  SERVER_DOWN: "MCP_SERVER_DOWN",
  /** The call got no answer within the server's timeout_seconds. */
  TIMEOUT: "MCP_TIMEOUT",
  /** The server has no such tool (any more). */
  UNKNOWN_TOOL: "MCP_UNKNOWN_TOOL",
  /** The server answered the call with a protocol error. */
  CALL_FAILED: "MCP_CALL_FAILED",
} as const;
export type McpErrorCode = (typeof MCP_ERROR_CODES)[keyof typeof MCP_ERROR_CODES];

export class McpToolError extends Error {
  constructor(
    readonly code: McpErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "McpToolError";
  }
}

export function isMcpToolError(error: unknown): error is McpToolError {
  return error instanceof McpToolError;
}
