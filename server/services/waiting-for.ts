import { AGENT_APPROVAL_KIND } from "@/server/agent/graph-node/agent-approval-request";
import type { HumanInputRequest } from "@/server/graph/nodes/human-input-node";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";

/** Attribute under which a suspended instance keeps its interrupt payload (usually a HumanInputRequest). */
export const WAITING_FOR_ATTR = "waiting_for";

/**
 * What a PAUSED instance waits for: the payload of the interrupt that suspended it, or null when it
 * was paused by a drain (or is not paused). A run (InstanceRun) writes the attribute before the PAUSED
 * status commits (the engine's beforeInterruptPause), so whoever sees the instance paused, in any
 * process, finds what it waits for.
 */
export function waitingFor(instance: GraphInstanceRecord): HumanInputRequest | Record<string, unknown> | null {
  if (instance.status !== "paused") return null;
  const value = instance.attrs[WAITING_FOR_ATTR];
  return value === undefined || value === null ? null : (value as HumanInputRequest);
}

/** What a waiting run waits for, as lists say it: an agent's tool call to approve, or a person's input. */
export type WaitKind = "input" | "approval";

/** The wait kind of a `waiting_for` payload's `kind` (any interrupt but an agent's approval asks for input). */
export function waitKindOf(payloadKind: unknown): WaitKind {
  return payloadKind === AGENT_APPROVAL_KIND ? "approval" : "input";
}

/** Attribute holding every answer given to the instance's human-input nodes, oldest first. */
export const ANSWERS_ATTR = "answers";

export interface AnswerRecord {
  node: string;
  value: unknown;
  /** Who answered, as the API knows it: "session" (a browser), "token" (REST, CLI), or "unknown". */
  by: string;
  /** A browser's sign-in session ref (answer-author.ts); absent for the API and for older records. */
  session?: string;
  at: number;
  /** The instance version the answer resumed. */
  version: number;
}

export function answersOf(instance: GraphInstanceRecord): AnswerRecord[] {
  const value = instance.attrs[ANSWERS_ATTR];
  return Array.isArray(value) ? (value as AnswerRecord[]) : [];
}
