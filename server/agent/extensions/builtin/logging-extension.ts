import type { AgentLogger } from "../../logger";
import { Extension, type ExtensionContextFor } from "../extension";

/**
 * Logs a line for each step of a turn: the message, each model call and its tokens, each tool call and
 * error, the end with its duration, and session start and end. Priority 1: it sees everything first.
 */
export class LoggingExtension extends Extension {
  readonly name = "logging";
  override priority = 1;
  private readonly started = new Map<string, number>();

  constructor(private readonly logger: AgentLogger) {
    super();
  }

  onBeforeMessageProcess(ctx: ExtensionContextFor<"BEFORE_MESSAGE_PROCESS">): void {
    this.started.set(ctx.turnId ?? ctx.sessionId, performance.now());
    this.logger.info(`[ext:logging] ${ctx.sessionId} turn ${ctx.turnId ?? ""} message (${ctx.get("message", "").length} chars)`);
  }

  onAfterLlmResponse(ctx: ExtensionContextFor<"AFTER_LLM_RESPONSE">): void {
    const usage = ctx.get("usage");
    const about = usage?.estimated ? "~" : "";
    this.logger.info(`[ext:logging] ${ctx.sessionId} model answered: ${about}${usage?.inputTokens ?? 0} in, ${about}${usage?.outputTokens ?? 0} out tokens${about && " (estimated)"}`);
  }

  onBeforeToolExecute(ctx: ExtensionContextFor<"BEFORE_TOOL_EXECUTE">): void {
    this.logger.info(`[ext:logging] ${ctx.sessionId} tool ${ctx.get("toolName", "")}`);
  }

  onToolError(ctx: ExtensionContextFor<"TOOL_ERROR">): void {
    this.logger.warn(`[ext:logging] ${ctx.sessionId} tool ${ctx.get("toolCall")?.name ?? ""} threw: ${String(ctx.get("error"))}`);
  }

  onLoopComplete(ctx: ExtensionContextFor<"LOOP_COMPLETE">): void {
    const key = ctx.turnId ?? ctx.sessionId;
    const since = this.started.get(key);
    this.started.delete(key);
    const ms = since === undefined ? "?" : (performance.now() - since).toFixed(0);
    this.logger.info(`[ext:logging] ${ctx.sessionId} turn ${ctx.turnId ?? ""} done in ${ms} ms`);
  }

  onCriticalError(ctx: ExtensionContextFor<"CRITICAL_ERROR">): void {
    this.started.delete(ctx.turnId ?? ctx.sessionId);
    this.logger.error(`[ext:logging] ${ctx.sessionId} turn failed: ${String(ctx.get("error"))}`);
  }

  /** A turn stopped by a veto or a cancel has no LOOP_COMPLETE: its end is logged (and let go) here. */
  onAfterResponseSend(ctx: ExtensionContextFor<"AFTER_RESPONSE_SEND">): void {
    const key = ctx.turnId ?? ctx.sessionId;
    const since = this.started.get(key);
    if (since === undefined) return;
    this.started.delete(key);
    this.logger.info(`[ext:logging] ${ctx.sessionId} turn ${ctx.turnId ?? ""} stopped in ${(performance.now() - since).toFixed(0)} ms`);
  }

  /** How many turns it is timing (tests: what ended is let go). */
  timing(): number {
    return this.started.size;
  }

  onSessionCreate(ctx: ExtensionContextFor<"SESSION_CREATE">): void {
    this.logger.info(`[ext:logging] session ${ctx.get("sessionId", "")} created`);
  }

  onSessionDestroy(ctx: ExtensionContextFor<"SESSION_DESTROY">): void {
    this.logger.info(`[ext:logging] session ${ctx.get("sessionId", "")} ended after ${ctx.get("messageCount", 0)} messages`);
  }
}
