import { SpecError, specIssue, type SpecIssue } from "@/server/graph/spec/spec-errors";
import { specIssuesFromZod } from "@/server/graph/spec/zod-issues";
import { withLocations } from "@/server/spec/parse-spec-yaml";
import { AgentDefinitionSchema, type AgentDefinition } from "./agent-definition";

/** What the reader checks tool names against: the catalog's names. */
export interface ToolNameSource {
  has(name: string): boolean;
  names(): readonly string[];
  /** Why an unknown name is unknown, when there is more to say than the list (an MCP server not configured…). */
  explainUnknown?(name: string): string | null;
}

/**
 * Why an agent may not name `name`, or null when it may: the one check of a tool name, for agent
 * definitions (`tools:`, `approval.tools`) and spec nodes' `config.tools` and approval rules alike.
 */
export function unknownToolMessage(name: string, tools: ToolNameSource): string | null {
  if (tools.has(name)) return null;
  return `no tool named "${name}" in the tool catalog (${tools.explainUnknown?.(name) ?? `known: ${tools.names().join(", ")}`})`;
}

/**
 * YAML text → a validated AgentDefinition. Throws only SpecError, every issue located at its line and
 * column (syntax, schema, and tool names the catalog does not have).
 */
export function readAgentYaml(text: string, tools: ToolNameSource): AgentDefinition {
  return withLocations(text, (data) => {
    const parsed = AgentDefinitionSchema.safeParse(data);
    if (!parsed.success) throw new SpecError(specIssuesFromZod(parsed.error.issues, data));
    const issues = unknownTools(parsed.data, tools);
    if (issues.length > 0) throw new SpecError(issues);
    return parsed.data;
  });
}

/** Every located issue of a definition, or none when it is valid (for the editor's live feedback). */
export function validateAgentYaml(text: string, tools: ToolNameSource): readonly SpecIssue[] {
  try {
    readAgentYaml(text, tools);
    return [];
  } catch (error) {
    return (error as SpecError).issues;
  }
}

function unknownTools(definition: AgentDefinition, tools: ToolNameSource): SpecIssue[] {
  const check = (field: "tools" | "approval", list: readonly string[]) =>
    list.flatMap((name, i) => {
      const why = unknownToolMessage(name, tools);
      return why ? [specIssue("reference", field === "tools" ? ["tools", i] : ["approval", "tools", i], why)] : [];
    });
  return [...check("tools", definition.tools), ...check("approval", definition.approval.tools.map((r) => (typeof r === "string" ? r : r.tool)))];
}
