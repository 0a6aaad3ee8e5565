import type { Tool } from "@/server/agent/tools/tool";
import type { ToolNameSource } from "./agent-yaml";

/** A tool as the Agents page and `GET /api/agents` list it. */
export interface ToolCatalogEntry {
  name: string;
  description: string;
  /** `graph_node`: installed by every agent node itself (deliver, knowledge_base); the chat has none. */
  scope: "any" | "graph_node";
  needsApproval: boolean;
  readOnly: boolean;
  /** The MCP server it comes from (config/mcp); absent for the app's own tools. */
  server?: string;
}

/**
 * Tools the catalog knows by name but does not hold (an MCP server's: it starts at first use, and its
 * tools are attached to each agent by the assembler). Definitions may name them; listing never starts one.
 */
export interface ToolSource {
  /** Whether a definition may name it (a server not started yet accepts any of its `<server>__<tool>` names). */
  has(name: string): boolean;
  /** Names for the editor's completion. */
  names(): string[];
  /** The tools it has listed so far. */
  list(): ToolCatalogEntry[];
  /** Why it does not have `name` when the name is of its kind (`<server>__<tool>`), else null. */
  explainUnknown?(name: string): string | null;
}

/**
 * The tools a definition's `tools:` list picks from, by name. The built-ins are registered by the app
 * (builtin-tool-catalog.ts); others (MCP servers, say) are added with `add`. A graph-node tool has no
 * implementation here: each agent node builds its own for the run (its targets, the run's knowledge base).
 */
export class ToolCatalog implements ToolNameSource {
  private readonly entries = new Map<string, { entry: ToolCatalogEntry; tool: Tool | null }>();
  private readonly sources: ToolSource[] = [];

  /** Adds a tool (or a graph-node tool's description); a name already taken is an error, never a silent swap. */
  add(tool: Tool | (Omit<ToolCatalogEntry, "scope"> & { scope: "graph_node" })): this {
    if (this.entries.has(tool.name)) throw new Error(`the tool catalog already has a tool named "${tool.name}"`);
    const entry: ToolCatalogEntry =
      "execute" in tool
        ? { name: tool.name, description: tool.description, scope: "any", needsApproval: tool.needsApproval, readOnly: tool.readOnly === true }
        : tool;
    this.entries.set(tool.name, { entry, tool: "execute" in tool ? tool : null });
    return this;
  }

  /** Adds tools known by name only (MCP servers); `tools()` and `all()` do not return them. */
  addSource(source: ToolSource): this {
    this.sources.push(source);
    return this;
  }

  has(name: string): boolean {
    return this.entries.has(name) || this.sources.some((s) => s.has(name));
  }

  names(): string[] {
    return [...this.entries.keys(), ...this.sources.flatMap((s) => s.names())];
  }

  explainUnknown(name: string): string | null {
    for (const source of this.sources) {
      const why = source.explainUnknown?.(name);
      if (why) return why;
    }
    return null;
  }

  list(): ToolCatalogEntry[] {
    return [...[...this.entries.values()].map((e) => e.entry), ...this.sources.flatMap((s) => s.list())];
  }

  /** The implementations of `names`, in order; unknown and graph-node names are skipped (validated on save). */
  tools(names: readonly string[]): Tool[] {
    return names.flatMap((name) => {
      const tool = this.entries.get(name)?.tool;
      return tool ? [tool] : [];
    });
  }

  /** Every tool with an implementation: what `agent` nodes with inline config pick from. */
  all(): Tool[] {
    return [...this.entries.values()].flatMap((e) => (e.tool ? [e.tool] : []));
  }
}
