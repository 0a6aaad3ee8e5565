// A test MCP server over stdio (mcp-connection.test.ts) listing tools an agent cannot all use: one whose
// input schema breaks the protocol (`required` is not a list), and two whose names become the same
// agent tool name (`dot.name` and `dot_name` are both `<server>__dot_name`). The low-level Server lists
// them as written; the SDK's McpServer would refuse to.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const object = { type: "object", properties: {} };
const tools = [
  { name: "good", description: "Answers ok", inputSchema: object },
  { name: "bad-schema", description: "Its schema is invalid", inputSchema: { type: "object", properties: { x: { type: "string" } }, required: "x" } },
  { name: "dot.name", description: "Dotted", inputSchema: object },
  { name: "dot_name", description: "Underscored", inputSchema: object },
];
const server = new Server({ name: "odd-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: "text", text: `called ${request.params.name}` }] }));
await server.connect(new StdioServerTransport());
