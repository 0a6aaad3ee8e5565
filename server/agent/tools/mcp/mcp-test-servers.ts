import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { McpServerConfigSchema, type McpServerConfig } from "./mcp-server-config";

/** The MCP project's reference server (a devDependency), run over stdio by the tests with this Node. */
export const EVERYTHING_SERVER = path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

export function everythingConfig(overrides: Record<string, unknown> = {}): McpServerConfig {
  return McpServerConfigSchema.parse({ name: "everything", transport: "stdio", command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], ...overrides });
}

/**
 * A small MCP server built with the SDK's streamable HTTP transport (stateless: a server per request),
 * with a `whoami` tool answering the Authorization header it received. Closing it is the server going
 * down; `listen(port)` again brings it back on the same port.
 */
export class HttpTestServer implements AsyncDisposable {
  private server: Server | null = null;
  port = 0;

  async listen(port = 0): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async handle(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): Promise<void> {
    if (req.method !== "POST") return void res.writeHead(405).end();
    const mcp = new McpServer({ name: "http-test", version: "1.0.0" });
    const authorization = req.headers.authorization ?? "(none)";
    mcp.registerTool("whoami", { description: "Answers the Authorization header of the request", inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: authorization }] }));
    mcp.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  }
}
