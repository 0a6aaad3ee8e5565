import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { McpConnection } from "./mcp-connection";
import { mcpTool, unlistedMcpTool } from "./mcp-tool";
import { everythingConfig } from "./mcp-test-servers";
import type { Tool, ToolOutput } from "../tool";

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function connect(overrides: Record<string, unknown> = {}): McpConnection {
  const connection = new McpConnection(everythingConfig(overrides), { cwdBase: process.cwd() });
  open.push(connection);
  return connection;
}

const ctx = () => ({ signal: new AbortController().signal, callId: "c1", sessionId: "s", turnId: "t" });

async function toolOf(connection: McpConnection, name: string): Promise<Tool> {
  const info = (await connection.listTools()).find((t) => t.name === name);
  if (!info) throw new Error(`no ${name}`);
  return mcpTool(connection, info);
}

function text(output: ToolOutput): string {
  return typeof output === "string" ? output : output.content;
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("an MCP server over stdio (@modelcontextprotocol/server-everything)", () => {
  it("starts only at first use, then lists its tools and answers a call", async () => {
    const connection = connect();
    expect(connection.status()).toMatchObject({ state: "not_started", starts: 0, pid: null, tools: null });
    const echo = await toolOf(connection, "echo");
    expect(connection.status()).toMatchObject({ state: "running", starts: 1 });
    expect(connection.status().pid).toEqual(expect.any(Number));
    expect(connection.status().tools).toEqual(expect.arrayContaining(["echo", "get-sum", "get-env"]));
    expect(echo).toMatchObject({ name: "everything__echo", readOnly: true, needsApproval: false });
    expect(await echo.execute({ message: "hello" }, ctx())).toBe("Echo: hello");
  });

  it("a crash is shown as failed with why, and the next call restarts the server", async () => {
    const connection = connect();
    const echo = await toolOf(connection, "echo");
    const firstPid = connection.status().pid!;
    process.kill(firstPid, "SIGKILL");
    await until(() => connection.status().state === "failed");
    expect(connection.status().reason).toContain("killed by SIGKILL");
    expect(await echo.execute({ message: "again" }, ctx())).toBe("Echo: again");
    expect(connection.status()).toMatchObject({ state: "running", starts: 2 });
    expect(connection.status().pid).not.toBe(firstPid);
  });

  it("a call past the server's timeout_seconds is cancelled and read as a tool error; the server keeps running", async () => {
    const connection = connect({ timeout_seconds: 0.5 });
    const slow = await toolOf(connection, "trigger-long-running-operation");
    const started = Date.now();
    const output = await slow.execute({ duration: 5, steps: 5 }, ctx());
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(output).toEqual({ isError: true, content: expect.stringContaining('MCP_TIMEOUT: MCP server "everything" did not answer trigger-long-running-operation within 0.5 s') });
    expect(connection.status().state).toBe("running");
    expect(await (await toolOf(connection, "echo")).execute({ message: "still here" }, ctx())).toBe("Echo: still here");
  });

  it("the agent's own cancellation (its tool deadline) stops a call at once", async () => {
    const connection = connect();
    const slow = await toolOf(connection, "trigger-long-running-operation");
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error("tool deadline")), 200);
    const started = Date.now();
    await expect(slow.execute({ duration: 5, steps: 5 }, { ...ctx(), signal: abort.signal })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("a server that cannot start: every call is a clear tool error, the reason names the cause, restarts back off", async () => {
    const connection = connect({ command: process.execPath, args: ["-e", "console.error('boom: MISSING_API_KEY is not set'); process.exit(3)"], startup_timeout_seconds: 5 });
    const tool = unlistedMcpTool(connection, "echo");
    const first = await tool.execute({ message: "x" }, ctx());
    expect(first).toEqual({ isError: true, content: expect.stringMatching(/^MCP_SERVER_DOWN: MCP server "everything" is down: could not start: .*boom: MISSING_API_KEY is not set/) });
    expect(connection.status()).toMatchObject({ state: "failed", starts: 1 });
    await tool.execute({ message: "x" }, ctx()); // one failure: tried again at once
    expect(connection.status().starts).toBe(2);
    const third = await tool.execute({ message: "x" }, ctx()); // two in a row: the next start waits a second
    expect(text(third)).toMatch(/next start is tried in 1 s/);
    expect(connection.status().starts).toBe(2);
    expect(connection.status().retryAt).toBeGreaterThan(Date.now());
  });

  it("a command that does not exist fails with the spawn error", async () => {
    const connection = connect({ command: "/nonexistent/mcp-server" });
    await expect(connection.listTools()).rejects.toThrow(/MCP_SERVER_DOWN: .*could not start: .*ENOENT/);
    expect(connection.status().reason).toMatch(/ENOENT/);
  });

  it("env adds to the few inherited variables: the app's own environment is not passed on", async () => {
    process.env.MODEX_MCP_TEST_SECRET = "app-secret";
    try {
      const connection = connect({ env: { GREETING: "from-config" } });
      const env = JSON.parse(text(await (await toolOf(connection, "get-env")).execute({}, ctx()))) as Record<string, string>;
      expect(env.GREETING).toBe("from-config");
      expect(env.PATH).toBeTruthy();
      expect(env.MODEX_MCP_TEST_SECRET).toBeUndefined();
    } finally {
      delete process.env.MODEX_MCP_TEST_SECRET;
    }
  });
});

describe("an MCP server listing tools agents cannot all use", () => {
  const ODD_TOOLS_SERVER = path.resolve("server/agent/tools/mcp/mcp-odd-tools-server.mjs");

  it("a tool with an invalid schema, or whose agent name another tool has, is left out and shown why; the other tools work", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const connection = connect({ name: "odd", args: [ODD_TOOLS_SERVER] });
      const listed = await connection.listTools();
      expect(listed.map((t) => t.name)).toEqual(["good", "dot.name"]);
      const status = connection.status();
      expect(status).toMatchObject({ state: "running", tools: ["good", "dot.name"] });
      expect(status.skippedTools).toEqual([
        { name: "bad-schema", reason: expect.stringMatching(/^its definition is invalid: inputSchema\.required: /) },
        { name: "dot_name", reason: 'its agent tool name odd__dot_name is tool "dot.name"\'s already' },
      ]);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('MCP server "odd": tool "bad-schema" is left out'));
      expect(await mcpTool(connection, listed[0]).execute({}, ctx())).toBe("called good");
      expect(await mcpTool(connection, listed[1]).execute({}, ctx())).toBe("called dot.name");
    } finally {
      warn.mockRestore();
    }
  });
});
