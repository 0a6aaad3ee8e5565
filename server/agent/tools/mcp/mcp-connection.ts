import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, PaginatedResultSchema, ToolListChangedNotificationSchema, ToolSchema, type CallToolResult, type Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { describeError } from "../../errors";
import { MCP_ERROR_CODES, McpToolError } from "./mcp-errors";
import { mcpServerTarget, type McpServerConfig } from "./mcp-server-config";
import { mcpToolName } from "./mcp-tool-names";

export type { McpToolInfo };

export type McpServerState = "not_started" | "starting" | "running" | "failed";

/** A server as the Agents page and `GET /api/agents` show it. */
export interface McpServerStatus {
  name: string;
  description: string | null;
  transport: McpServerConfig["transport"];
  /** Its command line or URL (never its env or headers, which may hold secrets). */
  target: string;
  state: McpServerState;
  /** Why it failed (state `failed`): the start's or the crash's error and the end of its stderr. */
  reason: string | null;
  /** When the current state began (ms since the epoch); null before the first start. */
  since: number | null;
  /** A failed server's next start is not tried before this (back-off after repeated failures); null: at next use. */
  retryAt: number | null;
  /** Starts so far (the first, then one per restart). */
  starts: number;
  pid: number | null;
  /** Its tools' MCP names once it has listed them; null before. */
  tools: string[] | null;
  /** Tools it listed that agents do not get, and why (an invalid definition, a name another tool's became). */
  skippedTools: McpSkippedTool[];
}

/** A tool a server listed that its agents do not get. */
export interface McpSkippedTool {
  /** Its MCP name, as listed. */
  name: string;
  reason: string;
}

export interface McpConnectionOptions {
  /** What a relative `cwd` is resolved against (the app's working directory). */
  cwdBase: string;
  now?: () => number;
}

/** Longest wait before a crash-looping server is tried again. */
const MAX_BACKOFF_MS = 30_000;
const STDERR_TAIL_CHARS = 2_000;

/**
 * One configured MCP server, through the official SDK's client. Nothing starts until the first use
 * (listing its tools for an agent, or a call); a server that fails to start or crashes is `failed`
 * with the reason, and the next use starts it again — at once after one failure, then after a back-off
 * doubling from 1 s to 30 s while failures repeat (a successful call resets it). Every call has the
 * server's deadline; errors come back as McpToolError, which the agent reads as a tool error, so a down
 * server never takes the app down.
 */
export class McpConnection {
  private state: McpServerState = "not_started";
  private client: Client | null = null;
  private starting: Promise<Client> | null = null;
  /** Bumped by every start and close: events of an older client (its onclose, say) are ignored. */
  private generation = 0;
  private tools: McpToolInfo[] | null = null;
  private skipped: McpSkippedTool[] = [];
  private reason: string | null = null;
  private since: number | null = null;
  private failures = 0;
  private retryAt: number | null = null;
  private starts = 0;
  private pid: number | null = null;
  private stderrTail = "";
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get name(): string {
    return this.config.name;
  }

  status(): McpServerStatus {
    return {
      name: this.config.name,
      description: this.config.description ?? null,
      transport: this.config.transport,
      target: mcpServerTarget(this.config),
      state: this.state,
      reason: this.state === "failed" ? this.reason : null,
      since: this.since,
      retryAt: this.state === "failed" ? this.retryAt : null,
      starts: this.starts,
      pid: this.state === "running" ? this.pid : null,
      tools: this.tools?.map((t) => t.name) ?? null,
      skippedTools: this.skipped,
    };
  }

  /** Its tools as last listed, without starting it; null when it never listed them. */
  knownTools(): readonly McpToolInfo[] | null {
    return this.tools;
  }

  /** Called when its tool list changes (first listing, a restart, the server's list_changed). */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Its tools, starting it first when it is not running. */
  async listTools(): Promise<readonly McpToolInfo[]> {
    await this.connected();
    return this.tools ?? [];
  }

  /** Calls one of its tools (MCP name), starting or restarting the server first when needed. */
  async callTool(name: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<CallToolResult> {
    const client = await this.connected();
    try {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: this.config.timeout_seconds * 1_000, signal: options.signal })) as CallToolResult;
      this.failures = 0;
      return result;
    } catch (error) {
      throw this.callError(error, name, client, options.signal);
    }
  }

  /** Stops the server (the app is shutting down, or a test is done); a later use starts it again. */
  async close(): Promise<void> {
    this.generation++;
    const client = this.client;
    this.client = null;
    this.setState("not_started");
    if (client) await client.close().catch(() => {});
  }

  private connected(): Promise<Client> {
    if (this.state === "running" && this.client) return Promise.resolve(this.client);
    if (this.starting) return this.starting;
    if (this.state === "failed" && this.retryAt !== null && this.now() < this.retryAt) {
      const seconds = Math.ceil((this.retryAt - this.now()) / 1_000);
      return Promise.reject(this.downError(`${this.reason}; the next start is tried in ${seconds} s`));
    }
    this.starting = this.start().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async start(): Promise<Client> {
    const generation = ++this.generation;
    this.starts++;
    this.stderrTail = "";
    this.setState("starting");
    const transport = this.createTransport();
    const client = new Client({ name: "modex", version: "1.0.0" }, { capabilities: {} });
    // The SDK forgets its child before onclose runs: keep it to tell an exit code or signal.
    let child: ChildProcess | undefined;
    client.onclose = () => this.lost(generation, exitDescription(child));
    const timeout = this.config.startup_timeout_seconds * 1_000;
    try {
      await client.connect(transport, { timeout });
      child = childOf(transport);
      const { tools, skipped } = await listAllTools(client, this.name, timeout);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refreshTools(client, generation));
      if (generation !== this.generation) throw new Error("closed while starting");
      this.client = client;
      this.pid = transport instanceof StdioClientTransport ? transport.pid : null;
      this.tools = tools;
      this.skip(skipped);
      this.stderrTail = ""; // what it logged while starting is not why it fails later
      this.setState("running");
      this.notify();
      return client;
    } catch (error) {
      if (generation === this.generation) this.generation++;
      await client.close().catch(() => {});
      throw this.fail(`could not start: ${describeError(error)}${this.stderrNote()}`);
    }
  }

  private createTransport(): Transport {
    const config = this.config;
    if (config.transport === "http") return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      // Added to the SDK's safe inherited set (HOME, PATH, …): the app's own secrets are not passed on.
      env: config.env,
      cwd: config.cwd === undefined ? this.options.cwdBase : path.resolve(this.options.cwdBase, config.cwd),
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  private async refreshTools(client: Client, generation: number): Promise<void> {
    try {
      const { tools, skipped } = await listAllTools(client, this.name, this.config.startup_timeout_seconds * 1_000);
      if (generation !== this.generation) return;
      this.tools = tools;
      this.skip(skipped);
      this.notify();
    } catch {
      // keep the last list; a broken connection shows through its onclose or the next call
    }
  }

  /** The connection of `generation` ended without close(): a crash (or the HTTP server went away). */
  private lost(generation: number, what: string): void {
    if (generation !== this.generation || this.state !== "running") return;
    this.generation++;
    this.client = null;
    this.fail(`${what}${this.stderrNote()}`);
  }

  private fail(reason: string): McpToolError {
    this.failures++;
    this.reason = reason;
    this.retryAt = this.now() + backoffMs(this.failures);
    this.setState("failed");
    return this.downError(reason);
  }

  private callError(error: unknown, tool: string, client: Client, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return error; // cancelled or cut off by the agent's own tool deadline: its error stands
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new McpToolError(MCP_ERROR_CODES.TIMEOUT, `MCP server "${this.name}" did not answer ${tool} within ${this.config.timeout_seconds} s; the call was cancelled`);
    }
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
      const code = /not found|unknown tool/i.test(error.message) ? MCP_ERROR_CODES.UNKNOWN_TOOL : MCP_ERROR_CODES.CALL_FAILED;
      return new McpToolError(code, `MCP server "${this.name}" refused ${tool}: ${error.message}`);
    }
    // The connection broke under the call (process gone, HTTP unreachable): down until the next use restarts it.
    if (client === this.client) {
      this.generation++;
      this.client = null;
      return this.fail(`the connection broke during a call: ${describeError(error)}${this.stderrNote()}`);
    }
    return this.downError(this.reason ?? describeError(error));
  }

  private downError(reason: string): McpToolError {
    return new McpToolError(MCP_ERROR_CODES.SERVER_DOWN, `MCP server "${this.name}" is down: ${reason}`);
  }

  private stderrNote(): string {
    const lines = this.stderrTail.split("\n").map((l) => l.trim()).filter((l) => l !== "");
    if (lines.length === 0) return "";
    const tail = lines.slice(-3).join(" | ");
    return ` (stderr: ${tail.length > 400 ? `…${tail.slice(-400)}` : tail})`;
  }

  /** Tools of the listing agents do not get: shown in its status, and logged once per listing. */
  private skip(skipped: McpSkippedTool[]): void {
    this.skipped = skipped;
    for (const t of skipped) console.warn(`[modex] MCP server "${this.name}": tool "${t.name}" is left out: ${t.reason}`);
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.since = this.now();
    if (state !== "running") this.pid = null;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/** Immediately after one failure (a crash is restarted at next use), then 1 s, 2 s, 4 s … 30 s. */
function backoffMs(failures: number): number {
  return failures <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** (failures - 2));
}

/** A tools/list page whose tools are not checked yet (they are checked one by one, so one bad tool costs only itself). */
const LooseToolsPageSchema = PaginatedResultSchema.extend({ tools: z.array(z.unknown()) });

/**
 * Every tool the server lists, each checked on its own: a tool whose definition breaks the protocol (an
 * input schema that is no JSON Schema object, say) is skipped with why, as is one whose agent tool name
 * (`<server>__<tool>`, see mcpToolName) another tool of the server already has. The SDK's own listing
 * refuses the whole page for one bad tool, which took every tool of the server away ("could not start").
 */
async function listAllTools(client: Client, server: string, timeout: number): Promise<{ tools: McpToolInfo[]; skipped: McpSkippedTool[] }> {
  const tools: McpToolInfo[] = [];
  const skipped: McpSkippedTool[] = [];
  const byAgentName = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = await listToolsPage(client, cursor, timeout);
    for (const raw of page.tools) {
      const listed = ToolSchema.safeParse(raw);
      const name = typeof (raw as { name?: unknown } | null)?.name === "string" ? (raw as { name: string }).name : "(unnamed)";
      if (!listed.success) {
        skipped.push({ name, reason: `its definition is invalid: ${listed.error.issues.map((i) => `${i.path.join(".") || "tool"}: ${i.message}`).join("; ")}` });
        continue;
      }
      const agentName = mcpToolName(server, listed.data.name);
      const taken = byAgentName.get(agentName);
      if (taken !== undefined) {
        skipped.push({ name, reason: `its agent tool name ${agentName} is tool "${taken}"'s already` });
        continue;
      }
      byAgentName.set(agentName, listed.data.name);
      tools.push(listed.data);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return { tools, skipped };
}

/** One page: through the SDK's listing (which also keeps the tools' output schemas to check results), or, when it refuses the page, unchecked. */
async function listToolsPage(client: Client, cursor: string | undefined, timeout: number): Promise<{ tools: unknown[]; nextCursor?: string }> {
  const params = cursor ? { cursor } : undefined;
  try {
    return await client.listTools(params, { timeout });
  } catch (error) {
    if (!isInvalidResult(error)) throw error;
    return client.request({ method: "tools/list", params }, LooseToolsPageSchema, { timeout });
  }
}

/** The SDK refused a result that does not fit its schema (a zod error), as opposed to a failed request. */
function isInvalidResult(error: unknown): boolean {
  return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

function exitDescription(child: ChildProcess | undefined): string {
  if (!child) return "the server closed the connection";
  if (child.signalCode) return `the server process was killed by ${child.signalCode}`;
  return child.exitCode === null ? "the server process closed its output" : `the server process exited with code ${child.exitCode}`;
}

/**
 * The SDK keeps its child process private; its exit code and signal are what tell a crash apart, so they
 * are read here defensively (the SDK version is pinned; without the field the reason is just less precise).
 */
function childOf(transport: Transport): ChildProcess | undefined {
  const candidate = (transport as unknown as { _process?: ChildProcess })._process;
  return candidate && typeof candidate.pid === "number" ? candidate : undefined;
}
