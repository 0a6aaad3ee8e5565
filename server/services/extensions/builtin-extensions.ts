import { ApprovalPolicyExtension } from "@/server/agent/extensions/builtin/approval-policy-extension";
import { LoggingExtension } from "@/server/agent/extensions/builtin/logging-extension";
import { DEFAULT_SECRET_PATTERNS, SecretMaskingExtension } from "@/server/agent/extensions/builtin/secret-masking-extension";
import { TokenBudgetExtension } from "@/server/agent/extensions/builtin/token-budget-extension";
import type { TokenTotals } from "@/server/agent/extensions/builtin/token-totals";
import type { Extension } from "@/server/agent/extensions/extension";
import type { AgentLogger } from "@/server/agent/logger";
import type { ExtensionsConfig } from "./extensions-config";

/**
 * The built-ins the config's `builtins:` sections name, configured as they say. `logger`: where the
 * `logging` extension writes its lines (at info, so it must be a logger that keeps info lines);
 * `tokenTotals`: where `token_budget` keeps instances' totals (the app database; default memory).
 */
export function builtinExtensions(config: ExtensionsConfig["builtins"], { logger, tokenTotals }: { logger: AgentLogger; tokenTotals?: TokenTotals }): Extension[] {
  const out: Extension[] = [];
  const { secret_masking: masking, logging, token_budget: budget, approval_policy: approval } = config;
  if (logging) out.push(new LoggingExtension(logger));
  if (budget) out.push(new TokenBudgetExtension({ perTurn: budget.per_turn, perInstance: budget.per_instance, totals: tokenTotals }));
  if (approval) out.push(new ApprovalPolicyExtension(approval.rules));
  if (masking) {
    out.push(new SecretMaskingExtension({ patterns: masking.patterns ?? DEFAULT_SECRET_PATTERNS, replacement: masking.replacement, holdBack: masking.hold_back }));
  }
  return out;
}
