import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { createTwoFilesPatch } from "diff";
import { KnowledgeBaseError } from "../errors";
import { KNOWLEDGE_PATTERNS, type KnowledgePattern, WRITABLE_PATTERNS, type WritablePattern } from "./knowledge-patterns";

export type WriteMode = "create" | "overwrite" | "append";

export interface ReadPage {
  text: string;
  /** 1-based line the page starts at. */
  offset: number;
  totalLines: number;
  /** Where the next page starts, or null when this page reaches the end. */
  nextOffset: number | null;
}

export interface GrepHit {
  pattern: KnowledgePattern;
  line: number;
  text: string;
}

/**
 * A graph instance's shared knowledge base: a broadcast-write, shared-read blackboard of markdown files
 * in one directory. Every successful write or edit appends a changelog entry (time, node, action and a
 * unified diff). File calls are synchronous on purpose: parallel nodes of one process then never
 * interleave a read-modify-write.
 */
export class GraphKnowledgeBase {
  constructor(
    readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The knowledge base of one graph instance under a workspace: `<workspace>/.modex/graphs/instances/<id>/`. */
  static forInstance(workspace: string, instanceId: string, now?: () => number): GraphKnowledgeBase {
    if (!/^[A-Za-z0-9_-]+$/.test(instanceId)) throw new KnowledgeBaseError(`instance id ${JSON.stringify(instanceId)} is not a safe directory name`);
    return new GraphKnowledgeBase(path.join(workspace, ".modex", "graphs", "instances", instanceId), now);
  }

  read(pattern: KnowledgePattern, offset = 1, limit = 200): ReadPage {
    const lines = splitLines(this.text(pattern));
    const start = Math.max(1, offset);
    const page = lines.slice(start - 1, start - 1 + limit);
    const end = start - 1 + page.length;
    return { text: page.join("\n"), offset: start, totalLines: lines.length, nextOffset: end < lines.length ? end + 1 : null };
  }

  /** The last `count` lines of a pattern ("" when it is empty). */
  tail(pattern: KnowledgePattern, count: number): string {
    return splitLines(this.text(pattern)).slice(-count).join("\n");
  }

  write(pattern: WritablePattern, content: string, mode: WriteMode, node: string): void {
    const before = this.text(pattern);
    if (mode === "create" && before !== "") throw new KnowledgeBaseError(`${pattern} already has content: append to it, or overwrite it`);
    const after = mode === "append" ? joinAppended(before, content) : ensureNewline(content);
    this.save(pattern, before, after, `${mode} ${pattern}`, node);
  }

  /** Replaces `oldText` (which must occur exactly once, unless `replaceAll`). Returns the count replaced. */
  edit(pattern: WritablePattern, oldText: string, newText: string, node: string, replaceAll = false): number {
    if (oldText === "") throw new KnowledgeBaseError("old_text is empty");
    const before = this.text(pattern);
    const count = before.split(oldText).length - 1;
    if (count === 0) throw new KnowledgeBaseError(`old_text does not occur in ${pattern}`);
    if (count > 1 && !replaceAll) throw new KnowledgeBaseError(`old_text occurs ${count} times in ${pattern}: make it unique, or set replace_all`);
    const after = replaceAll ? before.split(oldText).join(newText) : before.replace(oldText, () => newText);
    this.save(pattern, before, after, `edit ${pattern}`, node);
    return count;
  }

  ls(): { pattern: KnowledgePattern; lines: number; bytes: number }[] {
    return KNOWLEDGE_PATTERNS.map((pattern) => {
      const file = this.file(pattern);
      const bytes = existsSync(file) ? statSync(file).size : 0;
      return { pattern, lines: splitLines(this.text(pattern)).length, bytes };
    });
  }

  grep(regex: string, pattern?: KnowledgePattern, ignoreCase = false): GrepHit[] {
    let re: RegExp;
    try {
      re = new RegExp(regex, ignoreCase ? "i" : "");
    } catch (error) {
      throw new KnowledgeBaseError(`invalid regex: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Without a pattern, the changelog is left out: its diffs repeat every line of the others.
    const files = (pattern ? [pattern] : WRITABLE_PATTERNS).map((p) => ({ pattern: p, lines: splitLines(this.text(p)) }));
    const matched = matchWithin(re, files.map((f) => f.lines));
    return files.flatMap((f, n) => f.lines.flatMap((text, i) => (matched[n][i] ? [{ pattern: f.pattern, line: i + 1, text }] : [])));
  }

  private save(pattern: WritablePattern, before: string, after: string, action: string, node: string): void {
    if (after === before) return;
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.file(pattern), after);
    const diff = createTwoFilesPatch(`${pattern}.md`, `${pattern}.md`, before, after, "", "", { context: 2 })
      .split("\n")
      .slice(2) // the two `===`/header lines name the same file twice
      .join("\n")
      .trimEnd();
    const at = new Date(this.now()).toISOString();
    appendFileSync(this.file("changelog"), `## ${at} · ${node} · ${action}\n\n\`\`\`diff\n${diff}\n\`\`\`\n\n`);
  }

  private text(pattern: KnowledgePattern): string {
    const file = this.file(pattern);
    return existsSync(file) ? readFileSync(file, "utf8") : "";
  }

  private file(pattern: KnowledgePattern): string {
    return path.join(this.dir, `${pattern}.md`);
  }
}

/** How long a grep's regex may run: the model writes it, and a backtracking one would hold the server's thread. */
const GREP_TIMEOUT_MS = 1000;

/** Which lines `re` matches, run where V8 can interrupt it (a vm timeout) so a pathological regex fails alone. */
function matchWithin(re: RegExp, files: string[][]): boolean[][] {
  try {
    return vm.runInNewContext("files.map((lines) => lines.map((line) => re.test(line)))", { re, files }, { timeout: GREP_TIMEOUT_MS }) as boolean[][];
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw error;
    throw new KnowledgeBaseError(`regex ${re.source} ran over ${GREP_TIMEOUT_MS} ms (it backtracks): use a simpler one`);
  }
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  return text.replace(/\n$/, "").split("\n");
}

function ensureNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

function joinAppended(before: string, content: string): string {
  return ensureNewline(before) + ensureNewline(content);
}
