import { z } from "zod";
import { ToolCallSchema } from "../llm/messages";

/** A human decision on a suspended tool call. Arrives through ApprovalResumer, never the control channel. */
export const ApprovalDecisionSchema = z.object({
  transactionId: z.string(),
  approved: z.boolean(),
  /** Shown to the model when the call is denied. */
  reason: z.string().optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

export const ApprovalStatus = { PENDING: "pending", APPROVED: "approved", DENIED: "denied" } as const;
export type ApprovalStatus = (typeof ApprovalStatus)[keyof typeof ApprovalStatus];

/** The persisted record of a tool call awaiting a decision; the GraphInterrupt payload. */
export const ApprovalTransactionSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  turnId: z.string(),
  call: ToolCallSchema,
  status: z.enum(["pending", "approved", "denied"]),
  reason: z.string().optional(),
  createdAt: z.number(),
  decidedAt: z.number().optional(),
});
export type ApprovalTransaction = z.infer<typeof ApprovalTransactionSchema>;
