import type { ToolInvocation } from "../interceptor/interceptor";
import type { ToolCall } from "../llm/messages";
import type { ToolResult } from "../tools/tool-result";
import type { ExtensionInvoker } from "./extension-invoker";
import { turnExtensionContext } from "./turn-extension-context";
import { stringOr } from "./value-guards";

/** The app's retrieval step: the knowledge_base tool's reads and greps (graph runs' shared knowledge base). */
const KNOWLEDGE_TOOL = "knowledge_base";
/** The argument that is each retrieving action's query. */
const QUERY_ARG: Readonly<Record<string, string>> = { grep: "regex", read: "pattern" };

export interface KnowledgeQuery {
  action: string;
  query: string;
  /** The call to run: the original, or one whose query an extension rewrote. */
  call: ToolCall;
}

/** The call's retrieval query, when it is a knowledge-base read or grep that extensions watch. */
function queryOf(call: ToolCall): { action: string; arg: string; query: string } | null {
  if (call.name !== KNOWLEDGE_TOOL) return null;
  const args = parseArgs(call.arguments);
  const action = typeof args.action === "string" ? args.action : "";
  const arg = QUERY_ARG[action];
  const query = arg ? args[arg] : undefined;
  return arg && typeof query === "string" ? { action, arg, query } : null;
}

/** BEFORE_RAG_QUERY (TRANSFORM of `query`): a rewritten query runs in place of the model's. */
export async function beforeRagQuery(invoker: ExtensionInvoker, inv: ToolInvocation): Promise<KnowledgeQuery | null> {
  const found = queryOf(inv.call);
  if (!found) return null;
  const { action, arg } = found;
  if (!invoker.handles("BEFORE_RAG_QUERY")) return { action, query: found.query, call: inv.call };
  const value = await invoker.invoke("BEFORE_RAG_QUERY", turnExtensionContext(inv.turn, "BEFORE_RAG_QUERY", { query: found.query, action }));
  const query = stringOr(value, found.query);
  const call = query === found.query ? inv.call : { ...inv.call, arguments: JSON.stringify({ ...parseArgs(inv.call.arguments), [arg]: query }) };
  return { action, query, call };
}

/**
 * AFTER_RAG_RESULTS (TRANSFORM of `results`): a grep's hits, one `{ text, source }` per line, or the
 * page a read returned as one. The model reads the returned results' `text`s, one per line; an answer
 * that is not a list of objects keeps the tool's result.
 */
export async function afterRagResults(invoker: ExtensionInvoker, inv: ToolInvocation, q: KnowledgeQuery, result: ToolResult): Promise<ToolResult> {
  if (result.isError || !invoker.handles("AFTER_RAG_RESULTS")) return result;
  const results = q.action === "grep" ? result.content.split("\n").map((line) => ({ text: line, source: line.split(":")[0] })) : [{ text: result.content, source: q.query }];
  const data = { results, citations: results.map((r) => r.source), query: q.query, action: q.action };
  const value = await invoker.invoke("AFTER_RAG_RESULTS", turnExtensionContext(inv.turn, "AFTER_RAG_RESULTS", data));
  if (!Array.isArray(value) || !value.every((r) => typeof r === "object" && r !== null)) return result;
  return { ...result, content: value.map((r: Record<string, unknown>) => String(r.text ?? "")).join("\n") };
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
