import { z } from "zod";

/**
 * The nine control commands. They are not equal: see COMMAND_LIVENESS for which are live paths, which
 * are written but never consumed, and which exist only for protocol completeness. Approval decisions
 * never travel as commands (APPROVAL_RESPONSE is a leftover): they go through ApprovalResumer.
 */
export const ControlCommandType = {
  CANCEL_TURN: "CANCEL_TURN",
  PAUSE_GRAPH: "PAUSE_GRAPH",
  STOP_GRAPH: "STOP_GRAPH",
  RESUME_GRAPH: "RESUME_GRAPH",
  DELIVER_TO_NODE: "DELIVER_TO_NODE",
  INJECT_STEER: "INJECT_STEER",
  CANCEL_RUN: "CANCEL_RUN",
  INJECT_USER_MESSAGE: "INJECT_USER_MESSAGE",
  APPROVAL_RESPONSE: "APPROVAL_RESPONSE",
} as const;
export type ControlCommandType = (typeof ControlCommandType)[keyof typeof ControlCommandType];

export type CommandLiveness = "live" | "producer-only" | "reserved";

export const COMMAND_LIVENESS = {
  CANCEL_TURN: "live",
  PAUSE_GRAPH: "live",
  STOP_GRAPH: "live",
  RESUME_GRAPH: "live",
  DELIVER_TO_NODE: "live",
  INJECT_STEER: "producer-only",
  CANCEL_RUN: "reserved",
  INJECT_USER_MESSAGE: "reserved",
  APPROVAL_RESPONSE: "reserved",
} as const satisfies { [T in ControlCommandType]: CommandLiveness };

/** The graph-instance commands, routed to GraphControlService rather than drained by the agent. */
export const GRAPH_COMMANDS: ReadonlySet<ControlCommandType> = new Set([
  ControlCommandType.PAUSE_GRAPH,
  ControlCommandType.STOP_GRAPH,
  ControlCommandType.RESUME_GRAPH,
  ControlCommandType.DELIVER_TO_NODE,
]);

export const ControlScope = { TURN: "turn", SESSION: "session", GRAPH_INSTANCE: "graph_instance" } as const;
export type ControlScope = (typeof ControlScope)[keyof typeof ControlScope];

export const ControlCommandSchema = z.object({
  type: z.enum(ControlCommandType),
  scope: z.enum(ControlScope),
  /** Routing key: the session whose running turn should see the command. */
  sessionId: z.string(),
  /** Targets one turn; a command naming another turn is stale and discarded by the drain. */
  turnId: z.string().optional(),
  graphInstanceId: z.string().optional(),
  reason: z.string().optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
  /** Epoch ms, set by the channel on send. */
  sentAt: z.number().optional(),
});
export type ControlCommand = z.infer<typeof ControlCommandSchema>;
