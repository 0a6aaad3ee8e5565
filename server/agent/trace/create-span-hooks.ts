import type { Hook } from "../hook/hook-contracts";
import type { HookSpec } from "../hook/hook-runner";
import { AgentStartSpanHook } from "./agent-start-span-hook";
import { ApprovalSpanHook } from "./approval-span-hook";
import { ChatSpanHook, type ChatSpanOptions } from "./chat-span-hook";
import { HandoffSpanHook } from "./handoff-span-hook";
import { IterationSpanHook } from "./iteration-span-hook";
import { ResumeSpanHook } from "./resume-span-hook";
import { RootSpanHook } from "./root-span-hook";
import { SpanWriter, type SpanWriterOptions } from "./span-writer";
import { ToolSpanHook } from "./tool-span-hook";

export const SPAN_TIERS = ["minimal", "standard", "full"] as const;
export type SpanTier = (typeof SPAN_TIERS)[number];

export interface SpanHooksOptions extends SpanWriterOptions, ChatSpanOptions {
  tier: SpanTier;
  agentName?: string;
  handoffTools?: readonly string[];
}

/**
 * Span hooks run before every other hook at their points, so spans bracket what business hooks do.
 * Among themselves registration order is execution order.
 */
export const SPAN_HOOK_PRIORITY = -10_000;

/**
 * Assembles the span hook family for a tier — minimal: root; standard: root, chat, tool, handoff,
 * approval, resume; full: standard plus agent-start and iteration. The root span hook is always first: every
 * other span parents to the root span it opens.
 */
export function createSpanHooks(options: SpanHooksOptions): HookSpec[] {
  const writer = new SpanWriter(options);
  const agentName = options.agentName ?? "react";
  const hooks: Hook[] = [new RootSpanHook(writer, agentName)];
  if (options.tier !== "minimal") {
    hooks.push(
      new ChatSpanHook(writer, { providerName: options.providerName, model: options.model, captureContent: options.captureContent }),
      new ToolSpanHook(writer),
      new HandoffSpanHook(writer, options.handoffTools),
      new ApprovalSpanHook(writer),
      new ResumeSpanHook(writer),
    );
  }
  if (options.tier === "full") hooks.push(new AgentStartSpanHook(writer, agentName), new IterationSpanHook(writer));
  return hooks.map((hook) => ({ hook, priority: SPAN_HOOK_PRIORITY }));
}
