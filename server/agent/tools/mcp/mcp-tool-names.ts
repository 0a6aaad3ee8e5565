import { createHash } from "node:crypto";

/**
 * Namespaces MCP tools as `<server>__<tool>`. Model APIs accept tool names of letters, digits, `_` and
 * `-` only, at most 64 (OpenAI and Anthropic refuse a `.`), so `__` is the separator, and characters an
 * MCP name may have beyond those become `_`; a name still too long keeps a short hash of the original.
 */
export const MCP_TOOL_SEPARATOR = "__";
/** In a definition's `tools:`, `<server>__*` names every tool of that server. */
export const MCP_ALL_TOOLS = "*";

const MAX_TOOL_NAME = 64;

export function mcpToolName(server: string, tool: string): string {
  const name = `${server}${MCP_TOOL_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash("sha256").update(tool).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** `everything__echo` → { server: "everything", tool: "echo" }; `everything__*` → tool "*"; null: not an MCP name. */
export function splitMcpToolName(name: string): { server: string; tool: string } | null {
  const at = name.indexOf(MCP_TOOL_SEPARATOR);
  if (at <= 0 || at + MCP_TOOL_SEPARATOR.length >= name.length) return null;
  return { server: name.slice(0, at), tool: name.slice(at + MCP_TOOL_SEPARATOR.length) };
}
