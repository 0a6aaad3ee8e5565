import type { GraphInstanceRecord } from "@/server/graph/persistence/records";

/** Where a fork came from: kept in its attrs. */
export interface ForkOrigin {
  instanceId: string;
  version: number;
  eventId: number;
  /** The event's number within the origin's log (the timeline's numbering). */
  eventNumber: number;
  /** The spec revision the fork runs, when it is not the origin's. */
  specId: string | null;
  stateEdited: boolean;
}

/** A fork, as its origin lists it (in the origin's attrs). */
export interface ForkRef {
  instanceId: string;
  eventId: number;
  eventNumber: number;
  at: number;
}

export const FORKED_FROM_ATTR = "forked_from";
export const FORKS_ATTR = "forks";

export function forkedFromOf(instance: Pick<GraphInstanceRecord, "attrs">): ForkOrigin | null {
  const v = instance.attrs[FORKED_FROM_ATTR] as ForkOrigin | undefined;
  return v && typeof v === "object" && typeof v.instanceId === "string" ? v : null;
}

export function forksOf(instance: Pick<GraphInstanceRecord, "attrs">): ForkRef[] {
  const v = instance.attrs[FORKS_ATTR];
  return Array.isArray(v) ? (v as ForkRef[]).filter((f) => f && typeof f.instanceId === "string") : [];
}
