/**
 * The five knowledge patterns of a graph run's shared knowledge base, one markdown file each. The
 * append-only ones are so by convention (the tool says so; it does not refuse an overwrite); the
 * changelog alone is enforced, because attribution must be the tool's, not an agent's.
 */
export const KNOWLEDGE_PATTERNS = ["findings", "decisions", "open_questions", "context", "changelog"] as const;
export type KnowledgePattern = (typeof KNOWLEDGE_PATTERNS)[number];

export const WRITABLE_PATTERNS = ["findings", "decisions", "open_questions", "context"] as const;
export type WritablePattern = (typeof WRITABLE_PATTERNS)[number];

export const PATTERN_SEMANTICS: Record<KnowledgePattern, string> = {
  findings: "facts discovered during the run (append-only by convention)",
  decisions: "choices that affect downstream work (append-only by convention)",
  open_questions: "unresolved questions for downstream nodes (overwrite OK)",
  context: "stable run context: constraints, conventions (overwrite OK)",
  changelog: "auto-maintained log of every write and edit (read-only)",
};

export function isWritable(pattern: KnowledgePattern): pattern is WritablePattern {
  return pattern !== "changelog";
}
