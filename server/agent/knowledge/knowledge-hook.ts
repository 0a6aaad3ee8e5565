import { systemReminder } from "../hook/builtin/system-reminder";
import type { HookContext } from "../hook/hook-context";
import { type AfterTurnHook, type BeforeTurnHook, Hook } from "../hook/hook-contracts";
import { StopReason } from "../stop-reason";
import { TurnCustomKey } from "../state/turn-custom";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import type { GraphKnowledgeBase } from "./knowledge-base";
import { KNOWLEDGE_BASE_TOOL } from "./knowledge-base-tool";
import type { KnowledgeUsage } from "./knowledge-usage";

/** What a node's config requires of each turn: at least one read, at least one write. */
export interface KnowledgeRequirements {
  read: boolean;
  write: boolean;
}

const NUDGED = new TurnCustomKey<true>("knowledge.nudged");

/**
 * Closes the knowledge-base loop per turn: at the turn's start it resets the turn's read/write counts and
 * injects the tails of `findings` and `open_questions` as a `<knowledge_base>` reminder; after a turn
 * that completed without a read or write the node's config requires, it asks for one more attempt
 * (once: a second miss lets the turn end, so a model that will not comply cannot loop).
 */
export class KnowledgeHook extends Hook implements BeforeTurnHook, AfterTurnHook {
  constructor(
    private readonly kb: GraphKnowledgeBase,
    private readonly usage: KnowledgeUsage,
    private readonly require: KnowledgeRequirements,
    private readonly tailLines = 20,
  ) {
    super();
  }

  beforeTurn(ctx: HookContext<"BEFORE_TURN">): void {
    if (ctx.attempt !== 1) return; // a continuation attempt keeps what the turn did so far
    this.usage.reset(ctx.turn.turnId);
    const findings = this.kb.tail("findings", this.tailLines);
    const questions = this.kb.tail("open_questions", this.tailLines);
    if (findings === "" && questions === "") return;
    const sections = [findings && `### findings (latest)\n${findings}`, questions && `### open_questions (latest)\n${questions}`].filter(Boolean);
    ctx.turn.messages.push(systemReminder(`<knowledge_base>\n${sections.join("\n\n")}\n</knowledge_base>`));
  }

  afterTurn(ctx: HookContext<"AFTER_TURN">): void {
    if (ctx.result.stopReason !== StopReason.COMPLETED || ctx.turn.custom.has(NUDGED)) return;
    const counts = this.usage.of(ctx.turn.turnId);
    const missing = [this.require.read && counts.reads === 0 && "read it", this.require.write && counts.writes === 0 && "record what you found in it"].filter(Boolean);
    if (missing.length === 0) return;
    ctx.turn.custom.set(NUDGED, true);
    ctx.turn.messages.push(
      systemReminder(`This node must use the shared knowledge base before it finishes: ${missing.join(" and ")} with the ${KNOWLEDGE_BASE_TOOL} tool. If you already delivered, do not deliver again.`),
    );
    ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
  }
}
