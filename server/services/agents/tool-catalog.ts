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
}

/**
 * The tools a definition's `tools:` list picks from, by name. The built-ins are registered by the app
 * (builtin-tool-catalog.ts); others (MCP servers, say) are added with `add`. A graph-node tool has no
 * implementation here: each agent node builds its own for the run (its targets, the run's knowledge base).
 */
export class ToolCatalog implements ToolNameSource {
  private readonly entries = new Map<string, { entry: ToolCatalogEntry; tool: Tool | null }>();

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

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  list(): ToolCatalogEntry[] {
    return [...this.entries.values()].map((e) => e.entry);
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
