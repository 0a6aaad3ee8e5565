import { z } from "zod";

/** A server's name: the first part of its tools' names (`<server>__<tool>`), so no `_` (the separator is `__`). */
export const MCP_SERVER_NAME = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;

/** The per-call deadline when a server sets none, as MCP clients commonly use. */
export const DEFAULT_MCP_CALL_TIMEOUT_SECONDS = 60;
/** How long a server has to start (spawn or connect) and answer `initialize` and `tools/list`. */
export const DEFAULT_MCP_STARTUP_TIMEOUT_SECONDS = 30;

const common = {
  name: z.string().regex(MCP_SERVER_NAME, "a letter, then letters, digits or - (at most 32)").describe("The server's name: its tools are `<name>__<tool>` in the catalog."),
  description: z.string().min(1).optional().describe("What the server is for, shown on the Agents page."),
  timeout_seconds: z.number().positive().max(3_600).default(DEFAULT_MCP_CALL_TIMEOUT_SECONDS).describe("A tool call still unanswered after this is cancelled; the agent reads that it timed out."),
  startup_timeout_seconds: z.number().positive().max(600).default(DEFAULT_MCP_STARTUP_TIMEOUT_SECONDS).describe("Time to start and list its tools before the start counts as failed."),
  approval: z
    .enum(["unless_read_only", "always", "never"])
    .default("unless_read_only")
    .describe("Which of its tools ask the person first in the chat: those the server does not mark read-only (readOnlyHint), all, or none."),
};

const StdioServerSchema = z
  .object({
    ...common,
    transport: z.literal("stdio").describe("A local process spoken to over stdin/stdout."),
    command: z.string().min(1).describe("The program to start (looked up on PATH), e.g. node or npx."),
    args: z.array(z.string()).default([]).describe("Its arguments."),
    env: z.record(z.string(), z.string()).default({}).describe("Variables added to the few it inherits (HOME, PATH, SHELL, TERM, USER, LOGNAME)."),
    cwd: z.string().min(1).optional().describe("Its working directory, relative to the app's; default: the app's."),
  })
  .strict();

const HttpServerSchema = z
  .object({
    ...common,
    transport: z.literal("http").describe("A server reached over MCP's streamable HTTP transport."),
    url: z.url({ protocol: /^https?$/ }).describe("Its MCP endpoint, e.g. https://example.com/mcp."),
    headers: z.record(z.string(), z.string()).default({}).describe("Headers sent with every request (Authorization, say)."),
  })
  .strict();

/** One MCP server as a config file declares it (config/mcp/*.yml). Commands come only from these files. */
export const McpServerConfigSchema = z.discriminatedUnion("transport", [StdioServerSchema, HttpServerSchema]);

export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type McpStdioServerConfig = z.output<typeof StdioServerSchema>;
export type McpHttpServerConfig = z.output<typeof HttpServerSchema>;

/** What the Agents page shows of where a server runs: its command line or its URL (never its headers or env). */
export function mcpServerTarget(config: McpServerConfig): string {
  return config.transport === "stdio" ? [config.command, ...config.args].join(" ") : config.url;
}
