import { Extension, type ExtensionContextFor } from "../extension";
import { firstMatchingRule, type ArgumentRule } from "./argument-matcher";

/**
 * Answers APPROVAL_REQUIRED (UNTIL_HANDLED) by argument matching: the first rule for the call's tool
 * whose arguments match decides; `approve` runs the call without asking, `ask` (or no rule) leaves it to
 * the person. E.g. approve `run_graph` when its `name` (the spec) is one of a few; ask for any other.
 */
export class ApprovalPolicyExtension extends Extension {
  readonly name = "approval_policy";
  override priority = 40;
  private approved = 0;

  constructor(private readonly rules: readonly ArgumentRule[]) {
    super();
  }

  override counters(): Record<string, number> {
    return { approved: this.approved };
  }

  override resetCounters(): void {
    this.approved = 0;
  }

  onApprovalRequired(ctx: ExtensionContextFor<"APPROVAL_REQUIRED">): boolean | void {
    const call = ctx.get("toolCall");
    if (!call) return;
    const rule = firstMatchingRule(this.rules, call.name, parseArgs(call.arguments));
    if (rule?.decision !== "approve") return;
    this.approved += 1;
    return true;
  }
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
