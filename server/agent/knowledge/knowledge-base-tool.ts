import { z } from "zod";
import { isKnowledgeBaseError, KnowledgeBaseError } from "../errors";
import { defineTool, type Tool, type ToolOutput } from "../tools/tool";
import type { GraphKnowledgeBase } from "./knowledge-base";
import { isWritable, KNOWLEDGE_PATTERNS, PATTERN_SEMANTICS, type KnowledgePattern, type WritablePattern } from "./knowledge-patterns";
import type { KnowledgeUsage } from "./knowledge-usage";

export const KNOWLEDGE_ACTIONS = ["read", "write", "edit", "ls", "grep"] as const;
export type KnowledgeAction = (typeof KNOWLEDGE_ACTIONS)[number];
const READER_ACTIONS: readonly KnowledgeAction[] = ["read", "ls"];

export const KNOWLEDGE_BASE_TOOL = "knowledge_base";

/**
 * The actions an agent gets, from its actual tool set: an agent whose own tools all only read is a
 * reader (read, ls); any other agent, including one with no tools of its own, gets every action.
 */
export function knowledgeActionsFor(tools: readonly Tool[]): readonly KnowledgeAction[] {
  return tools.length > 0 && tools.every((t) => t.readOnly) ? READER_ACTIONS : KNOWLEDGE_ACTIONS;
}

/**
 * `knowledge_base`: the graph run's shared blackboard (GraphKnowledgeBase) as one tool. Its action enum
 * lists only what this agent may do; execution checks again (defence in depth). Reads and writes are
 * counted per turn for KnowledgeHook.
 */
export function knowledgeBaseTool(options: { kb: GraphKnowledgeBase; node: string; actions: readonly KnowledgeAction[]; usage?: KnowledgeUsage }): Tool {
  const { kb, node, actions, usage } = options;
  const allowed = new Set(actions);
  const patterns = KNOWLEDGE_PATTERNS.map((p) => `- ${p}: ${PATTERN_SEMANTICS[p]}`).join("\n");
  const args = z.object({
    action: z.enum(actions as [KnowledgeAction, ...KnowledgeAction[]]),
    pattern: z.enum(KNOWLEDGE_PATTERNS).optional().describe("Which file; required except for ls (and optional for grep)."),
    content: z.string().optional().describe("write: the text to write."),
    mode: z.enum(["create", "overwrite", "append"]).optional().describe("write: create (only if empty), overwrite, or append (default)."),
    old_text: z.string().optional().describe("edit: the exact text to replace."),
    new_text: z.string().optional().describe("edit: its replacement."),
    replace_all: z.boolean().optional().describe("edit: replace every occurrence."),
    regex: z.string().optional().describe("grep: a regular expression, matched per line."),
    ignore_case: z.boolean().optional(),
    offset: z.number().int().min(1).optional().describe("read: first line (1-based)."),
    limit: z.number().int().min(1).max(1000).optional().describe("read: lines per page (default 200)."),
  });
  return defineTool({
    name: KNOWLEDGE_BASE_TOOL,
    description: `The knowledge base shared by every node of this graph run (you are node ${node}). Record what later nodes need; read what earlier ones found. Files:\n${patterns}\nActions: ${actions.join(", ")}.`,
    args,
    execute: (a, ctx): ToolOutput => {
      if (!allowed.has(a.action)) return { content: `The ${a.action} action is not available to this agent: it may ${actions.join(", ")}.`, isError: true };
      try {
        const out = run(a);
        usage?.record(ctx.turnId, a.action === "write" || a.action === "edit" ? "writes" : "reads");
        return out;
      } catch (error) {
        if (isKnowledgeBaseError(error)) return { content: error.message, isError: true };
        throw error;
      }
    },
  });

  function run(a: z.output<typeof args>): string {
    switch (a.action) {
      case "ls":
        return kb.ls().map((f) => `${f.pattern}.md  ${f.lines} lines  ${f.bytes} bytes`).join("\n");
      case "read": {
        const page = kb.read(need(a.pattern, "pattern"), a.offset, a.limit);
        if (page.totalLines === 0) return `${a.pattern} is empty.`;
        const more = page.nextOffset ? `\n[lines ${page.offset}–${page.nextOffset - 1} of ${page.totalLines}; next offset ${page.nextOffset}]` : "";
        return page.text + more;
      }
      case "grep": {
        const hits = kb.grep(need(a.regex, "regex"), a.pattern, a.ignore_case);
        return hits.length === 0 ? "No matches." : hits.map((h) => `${h.pattern}.md:${h.line}: ${h.text}`).join("\n");
      }
      case "write": {
        const pattern = writable(need(a.pattern, "pattern"));
        kb.write(pattern, need(a.content, "content"), a.mode ?? "append", node);
        return `Wrote ${pattern} (${a.mode ?? "append"}).`;
      }
      case "edit": {
        const pattern = writable(need(a.pattern, "pattern"));
        const count = kb.edit(pattern, need(a.old_text, "old_text"), a.new_text ?? "", node, a.replace_all);
        return `Edited ${pattern}: ${count} replacement${count === 1 ? "" : "s"}.`;
      }
    }
  }
}

function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new KnowledgeBaseError(`${name} is required for this action`);
  return value;
}

function writable(pattern: KnowledgePattern): WritablePattern {
  if (!isWritable(pattern)) throw new KnowledgeBaseError("the changelog is maintained by the tool: it cannot be written or edited directly");
  return pattern;
}
