import type { ChatMessage, ToolCall } from "../../llm/messages";
import type { ToolResult } from "../../tools/tool-result";
import { Extension, type ExtensionContextFor } from "../extension";

export interface SecretMaskingOptions {
  /** Regular expressions (source text, flags "g" added) whose matches are secrets. */
  patterns: readonly string[];
  /** What a secret is replaced by. */
  replacement?: string;
  /**
   * Streamed text is held back by at most this many characters, so a secret split across chunks is
   * still seen whole before it is passed on (a secret longer than this may leak its start).
   */
  holdBack?: number;
}

/** Common secret shapes: API keys of the big providers, GitHub and Slack tokens, AWS access key ids, bearer tokens. */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = [
  "sk-[A-Za-z0-9_-]{16,}",
  "gh[pousr]_[A-Za-z0-9]{20,}",
  "xox[abprs]-[A-Za-z0-9-]{10,}",
  "AKIA[0-9A-Z]{16}",
  "Bearer\\s+[A-Za-z0-9._~+/-]{20,}=*",
];

/**
 * Replaces secrets wherever text goes towards the model, the user or the event log: the prompt
 * (FULL_PROMPT_READY), streamed text before it leaves the server (DURING_LLM_STREAMING), the response
 * (AFTER_LLM_RESPONSE, LOOP_COMPLETE, BEFORE_RESPONSE_SEND), tool calls' arguments (BEFORE_TOOL_PARSE),
 * tool results (AFTER_TOOL_EXECUTE) and knowledge-base results (AFTER_RAG_RESULTS). Counts what it hid.
 * Priority 90: late, after the extensions that rewrite text.
 */
export class SecretMaskingExtension extends Extension {
  readonly name = "secret_masking";
  override priority = 90;
  private readonly patterns: RegExp[];
  private readonly replacement: string;
  private readonly holdBack: number;
  /** Streamed text not yet passed on, per turn. */
  private readonly pending = new Map<string, string>();
  private masked = 0;

  constructor(options: SecretMaskingOptions) {
    super();
    this.patterns = options.patterns.map((p) => new RegExp(p, "g"));
    this.replacement = options.replacement ?? "[masked]";
    this.holdBack = options.holdBack ?? 64;
  }

  override counters(): Record<string, number> {
    return { masked: this.masked };
  }

  override resetCounters(): void {
    this.masked = 0;
  }

  /** The text with every secret replaced; counts the replacements. */
  mask(text: string): string {
    const { masked, masks } = this.preview(text);
    this.masked += masks;
    return masked;
  }

  /**
   * What `mask` would make of the text, and how many secrets it replaced, without counting them: a person
   * trying the patterns (the Extensions page) is not masking anything the statistics are about.
   */
  preview(text: string): { masked: string; masks: number } {
    let masks = 0;
    let out = text;
    for (const re of this.patterns) {
      out = out.replace(re, () => {
        masks += 1;
        return this.replacement;
      });
    }
    return { masked: out, masks };
  }

  /** How many patterns it masks by (the config's, or the defaults, and any added since). */
  get patternCount(): number {
    return this.patterns.length;
  }

  /**
   * One more pattern (the spec's `add_pattern`), for code that builds the extension itself; a person adds
   * one under `builtins.secret_masking.patterns` in extensions.yml. Throws a SyntaxError for an invalid one.
   */
  addPattern(source: string): void {
    this.patterns.push(new RegExp(source, "g"));
  }

  onFullPromptReady(ctx: ExtensionContextFor<"FULL_PROMPT_READY">): ChatMessage[] | void {
    const prompt = ctx.get("prompt", []);
    return prompt.map((m) => ({ ...m, content: this.mask(m.content) }) as ChatMessage);
  }

  onDuringLlmStreaming(ctx: ExtensionContextFor<"DURING_LLM_STREAMING">): string {
    const key = ctx.turnId ?? ctx.sessionId;
    const buffer = (this.pending.get(key) ?? "") + ctx.get("chunk", "");
    if (ctx.get("context")?.final) {
      this.pending.delete(key);
      return this.mask(buffer);
    }
    const cut = this.safeCut(buffer);
    this.pending.set(key, buffer.slice(cut));
    return this.mask(buffer.slice(0, cut));
  }

  onAfterLlmResponse(ctx: ExtensionContextFor<"AFTER_LLM_RESPONSE">): string {
    return this.maskQuietly(ctx.get("response", ""));
  }

  onBeforeToolParse(ctx: ExtensionContextFor<"BEFORE_TOOL_PARSE">): void {
    const calls = ctx.get("toolCalls", []);
    ctx.set("toolCalls", calls.map((c): ToolCall => ({ ...c, arguments: this.mask(c.arguments) })));
  }

  onAfterToolExecute(ctx: ExtensionContextFor<"AFTER_TOOL_EXECUTE">): ToolResult | void {
    const result = ctx.get("toolResult");
    return result ? { ...result, content: this.mask(result.content) } : undefined;
  }

  onAfterRagResults(ctx: ExtensionContextFor<"AFTER_RAG_RESULTS">): Array<Record<string, unknown>> {
    return ctx.get("results", []).map((r) => ({ ...r, text: this.mask(String(r.text ?? "")) }));
  }

  onLoopComplete(ctx: ExtensionContextFor<"LOOP_COMPLETE">): string {
    return this.maskQuietly(ctx.get("finalResponse", ""));
  }

  onBeforeResponseSend(ctx: ExtensionContextFor<"BEFORE_RESPONSE_SEND">): string {
    return this.maskQuietly(ctx.get("response", ""));
  }

  /** The response was streamed (and counted) already: masking it again must not count twice. */
  private maskQuietly(text: string): string {
    const before = this.masked;
    const out = this.mask(text);
    this.masked = before;
    return out;
  }

  /**
   * Where streamed text may be cut: `holdBack` characters before its end, moved back to the start of
   * any secret that spans that point, so a secret is always passed on whole (and masked).
   */
  private safeCut(buffer: string): number {
    let cut = Math.max(0, buffer.length - this.holdBack);
    for (const re of this.patterns) {
      for (const m of buffer.matchAll(re)) {
        if (m.index < cut && m.index + m[0].length > cut) cut = m.index;
      }
    }
    return cut;
  }
}
