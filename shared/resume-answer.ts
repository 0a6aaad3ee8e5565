import type { ResumeSignal } from "@/server/graph/payload";
import type { RunEvent } from "@/shared/run-state";
import { START } from "@/shared/canvas/topology";

/**
 * The answer a resume handed to the node that waited for it, as the event log records it: the entry
 * node's deliver of a resume signal (server/graph/start-node.ts) to that node. Every answer leaves one,
 * whichever way it came (the web app, REST, modexctl, another process of a cluster), so any reader of
 * the log sees what was answered and when. Plain TypeScript importing server code as types only.
 */
export type ResumeAnswer =
  /** A person's answer to a human-input node. */
  | { kind: "answer"; node: string; value: unknown }
  /** The decision on an agent node's tool call (its value is `{ transactionId, approved, reason? }`). */
  | { kind: "decision"; node: string; approved: boolean };

const MARK: keyof ResumeSignal = "__resume__";

/** The answer an event carries: a promoted resume deliver from the entry node; null for any other event. */
export function resumeAnswerOf(e: RunEvent): ResumeAnswer | null {
  if (e.type !== "deliver_promoted" || e.source !== START) return null;
  const payload = e.payload as Partial<ResumeSignal> | null | undefined;
  if (typeof payload !== "object" || payload === null || payload[MARK] !== true) return null;
  const value = payload.value as { transactionId?: unknown; approved?: unknown } | null | undefined;
  if (typeof value === "object" && value !== null && typeof value.transactionId === "string" && typeof value.approved === "boolean") {
    return { kind: "decision", node: e.target, approved: value.approved };
  }
  return { kind: "answer", node: e.target, value: payload.value };
}
