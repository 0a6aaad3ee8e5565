import { SpecError, specIssue } from "@/server/graph/spec/spec-errors";
import { specIssuesFromZod } from "@/server/graph/spec/zod-issues";
import { withLocations } from "@/server/spec/parse-spec-yaml";
import { McpServerConfigSchema, type McpServerConfig } from "@/server/agent/tools/mcp/mcp-server-config";
import { readYamlFile, yamlFilesOf } from "../yaml-folder";

export interface McpConfigReport {
  servers: McpServerConfig[];
  /** Files not loaded, each with every problem located (`file: path (line L, column C): message`). */
  failed: { file: string; message: string }[];
}

/**
 * YAML text of one MCP server (config/mcp/<name>.yml) → its validated config. Throws only SpecError,
 * every issue located at its line and column, as agent definitions and specs do.
 */
export function readMcpServerYaml(text: string, taken: readonly string[] = []): McpServerConfig {
  return withLocations(text, (data) => {
    const parsed = McpServerConfigSchema.safeParse(data);
    if (!parsed.success) throw new SpecError(specIssuesFromZod(parsed.error.issues, data));
    if (taken.includes(parsed.data.name)) {
      throw new SpecError([specIssue("reference", ["name"], `another file already declares an MCP server named "${parsed.data.name}"`)]);
    }
    return parsed.data;
  });
}

/**
 * Every `*.yml` / `*.yaml` in `dir`, read once at start-up: the only way a server (and so a command the
 * app runs) is declared; no API call adds one. A bad file, or a second file with a name already taken,
 * is reported and skipped, never fatal. A missing folder declares none.
 */
export function loadMcpDirectory(dir: string | undefined): McpConfigReport {
  const out: McpConfigReport = { servers: [], failed: [] };
  if (!dir) return out;
  for (const file of yamlFilesOf(dir)) {
    try {
      const taken = out.servers.map((s) => s.name);
      out.servers.push(readMcpServerYaml(readYamlFile(dir, file), taken));
    } catch (error) {
      out.failed.push({ file, message: messageOf(error) });
    }
  }
  return out;
}

function messageOf(error: unknown): string {
  if (error instanceof SpecError) return error.message.replace(/^invalid graph spec: /, "");
  return error instanceof Error ? error.message : String(error);
}
