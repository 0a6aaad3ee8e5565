import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Tool, ToolOutput } from "../tool";
import type { McpConnection, McpToolInfo } from "./mcp-connection";
import { isMcpToolError } from "./mcp-errors";
import type { McpServerConfig } from "./mcp-server-config";
import { mcpToolName } from "./mcp-tool-names";

/**
 * An MCP tool as an agent tool. The model sees the server's own input schema (carried as the schema's
 * JSON Schema metadata); the arguments are checked by the server, whose complaint comes back as a tool
 * error the model reads. Failures to reach the server come back the same way (McpToolError's message).
 */
export function mcpTool(connection: McpConnection, info: McpToolInfo): Tool {
  return {
    name: mcpToolName(connection.name, info.name),
    description: describe(connection.config, info),
    args: argsSchema(info.inputSchema),
    needsApproval: asksApproval(connection.config, info),
    ...(info.annotations?.readOnlyHint === true ? { readOnly: true } : {}),
    execute: (args, ctx) => callMcpTool(connection, info.name, args as Record<string, unknown>, ctx.signal),
  };
}

/**
 * A tool a definition names explicitly whose server has not listed its tools (it failed to start): the
 * agent still has it, and calling it tries the server again or says why it is down.
 */
export function unlistedMcpTool(connection: McpConnection, tool: string): Tool {
  return {
    name: mcpToolName(connection.name, tool),
    description: `Tool "${tool}" of MCP server "${connection.name}" (its description is unknown: the server has not started).`,
    args: argsSchema({ type: "object" }),
    needsApproval: connection.config.approval !== "never",
    execute: (args, ctx) => callMcpTool(connection, tool, args as Record<string, unknown>, ctx.signal),
  };
}

async function callMcpTool(connection: McpConnection, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput> {
  try {
    return mcpResultOutput(await connection.callTool(tool, args, { signal }));
  } catch (error) {
    if (isMcpToolError(error)) return { content: error.message, isError: true };
    throw error;
  }
}

/** An MCP result as the text the model reads: text parts verbatim, other parts described, structured content as JSON. */
export function mcpResultOutput(result: CallToolResult): ToolOutput {
  const parts = (result.content ?? []).map(describePart);
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const content = parts.join("\n");
  return result.isError ? { content: content || "the tool failed without saying why", isError: true } : content;
}

function describePart(part: CallToolResult["content"][number]): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "image":
    case "audio":
      return `[${part.type} ${part.mimeType}, ${Math.round((part.data.length * 3) / 4)} bytes]`;
    case "resource":
      return "text" in part.resource ? `[resource ${part.resource.uri}]\n${part.resource.text}` : `[resource ${part.resource.uri}, binary ${part.resource.mimeType ?? ""}]`.replace(" ]", "]");
    case "resource_link":
      return `[resource link ${part.name}: ${part.uri}]`;
    default:
      return `[${(part as { type: string }).type}]`;
  }
}

function describe(config: McpServerConfig, info: McpToolInfo): string {
  const text = info.description?.trim() || info.title || info.name;
  return `${text} (MCP server "${config.name}")`;
}

function asksApproval(config: McpServerConfig, info: McpToolInfo): boolean {
  if (config.approval === "always") return true;
  if (config.approval === "never") return false;
  return info.annotations?.readOnlyHint !== true;
}

/**
 * Any JSON object; its JSON Schema is the server's (zod merges metadata into `toJSONSchema`'s output).
 * `$schema` and ids are dropped: an id would enter zod's global id registry.
 */
function argsSchema(inputSchema: Record<string, unknown>): z.ZodType {
  const { $schema: _schema, $id: _id, id: _plainId, ...jsonSchema } = inputSchema;
  return z.looseObject({}).meta(jsonSchema);
}
