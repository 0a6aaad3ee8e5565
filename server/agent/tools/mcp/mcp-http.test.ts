import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "./mcp-connection";
import { McpServerConfigSchema } from "./mcp-server-config";
import { mcpTool } from "./mcp-tool";
import { HttpTestServer } from "./mcp-test-servers";

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function connect(url: string, headers: Record<string, string> = {}): McpConnection {
  const config = McpServerConfigSchema.parse({ name: "remote", transport: "http", url, headers, startup_timeout_seconds: 5 });
  const connection = new McpConnection(config, { cwdBase: process.cwd() });
  open.push(connection);
  return connection;
}

const ctx = () => ({ signal: new AbortController().signal, callId: "c1", sessionId: "s", turnId: "t" });

describe("an MCP server over streamable HTTP (a server built with the SDK)", () => {
  it("connects at first use, sends the configured headers with every request, and calls a tool", async () => {
    await using server = await new HttpTestServer().listen();
    const connection = connect(server.url, { Authorization: "Bearer s3cret" });
    expect(connection.status()).toMatchObject({ state: "not_started", transport: "http", target: server.url });
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["add", "whoami"]);
    const [whoami, add] = ["whoami", "add"].map((n) => mcpTool(connection, tools.find((t) => t.name === n)!));
    expect(await whoami.execute({}, ctx())).toBe("Bearer s3cret");
    expect(await add.execute({ a: 2, b: 40 }, ctx())).toBe("42");
    // The model sees the server's own input schema.
    expect(add.needsApproval).toBe(true); // not marked read-only
    const { toolSpec } = await import("../tool");
    expect(toolSpec(add).parameters).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
  });

  it("a server that went away is a tool error naming it; once it is back the next call reconnects", async () => {
    const server = await new HttpTestServer().listen();
    const connection = connect(server.url);
    const tools = await connection.listTools();
    const add = mcpTool(connection, tools.find((t) => t.name === "add")!);
    const port = server.port;
    await server.close();
    const down = await add.execute({ a: 1, b: 1 }, ctx());
    expect(down).toEqual({ isError: true, content: expect.stringMatching(/^MCP_SERVER_DOWN: MCP server "remote" is down: /) });
    expect(connection.status().state).toBe("failed");
    await using back = await new HttpTestServer().listen(port);
    expect(await add.execute({ a: 1, b: 1 }, ctx())).toBe("2");
    expect(connection.status()).toMatchObject({ state: "running", starts: 2 });
    void back;
  });

  it("a URL nobody answers: the start fails with the connection error", async () => {
    const server = await new HttpTestServer().listen();
    const url = server.url;
    await server.close();
    const connection = connect(url);
    await expect(connection.listTools()).rejects.toThrow(/MCP_SERVER_DOWN: MCP server "remote" is down: could not start: .*(fetch failed|ECONNREFUSED)/);
  });
});
