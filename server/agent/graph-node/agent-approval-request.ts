/** The `kind` of an agent node's interrupt payload (a human-input node's is "human_input"). */
export const AGENT_APPROVAL_KIND = "agent_approval";

/**
 * What a graph instance waits for when an agent node's tool call needs approval: the interrupt payload
 * (kept as the instance's `waiting_for`), shown on the approval card and answered by approve / deny.
 */
export interface AgentApprovalRequest {
  readonly kind: typeof AGENT_APPROVAL_KIND;
  readonly node: string;
  /** One line for lists and the CLI. */
  readonly prompt: string;
  readonly transactionId: string;
  readonly turnId: string;
  readonly tool: string;
  readonly args: unknown;
  /** What the agent said in this turn before asking (its reasoning so far). */
  readonly reasoning: string;
  readonly requestedAt: number;
  readonly context: readonly unknown[];
}

export function isAgentApprovalRequest(value: unknown): value is AgentApprovalRequest {
  return !!value && typeof value === "object" && (value as { kind?: unknown }).kind === AGENT_APPROVAL_KIND;
}
