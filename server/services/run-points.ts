import type { StateSnapshots } from "@/server/db/state-snapshots";
import { END } from "@/server/graph/names";
import { ServiceError } from "./errors";
import type { EventLog, StoredEvent } from "./event-log";

/** A deliver that was waiting for its target at a point of a run (or claimed by a node still running). */
export interface PendingAtPoint {
  deliverId: string;
  source: string;
  target: string;
  content: unknown;
}

/**
 * A point of a run (after event `eventId`) as a crash there would have left it: the graph state the last
 * completion before it saved, and the ledger's open delivers. A node that had started but not completed
 * by then has its inputs counted as open (recovery would run it again), exactly as after a crash.
 */
export interface RunPoint {
  instanceId: string;
  eventId: number;
  /** The event's number within the instance's log (from 1), as the timeline numbers it. */
  eventNumber: number;
  /** The instance version the event belongs to. */
  version: number;
  /** Null when no node had changed the state yet: the graph's initial state (`initial` true). */
  stateJson: string | null;
  initial: boolean;
  /** The completion that saved the state, or null for the initial state. */
  asOf: { invocationId: string; node: string; eventId: number } | null;
  pending: PendingAtPoint[];
  /** Nodes started and not ended at the point. */
  running: string[];
  /** END had completed in this version at or before the point: nothing was left to run. */
  ended: boolean;
}

/** Reads the state snapshot kept as of an invocation (see server/db/state-snapshots.ts). */
export type StateSnapshotReader = Pick<StateSnapshots, "get" | "seedOf">;

const PAGE = 10_000;

/** Every event of the instance up to `eventId` (inclusive), in order; NOT_FOUND when there is no such event. */
export async function eventsUpTo(log: EventLog, instanceId: string, eventId: number): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await log.list(instanceId, { afterId: after, limit: PAGE });
    for (const e of page) {
      if (e.id > eventId) return finish(out, instanceId, eventId);
      out.push(e);
    }
    if (page.length < PAGE) return finish(out, instanceId, eventId);
    after = page[page.length - 1].id;
  }
}

/** The id of the instance's last event (NOT_FOUND when it has none). */
export async function lastEventId(log: EventLog, instanceId: string): Promise<number> {
  let last = 0;
  for (;;) {
    const page = await log.list(instanceId, { afterId: last, limit: PAGE });
    if (page.length > 0) last = page[page.length - 1].id;
    if (page.length < PAGE) break;
  }
  if (last === 0) throw new ServiceError("NOT_FOUND", `instance ${instanceId} has no events`);
  return last;
}

function finish(events: StoredEvent[], instanceId: string, eventId: number): StoredEvent[] {
  if (events.at(-1)?.id !== eventId) throw new ServiceError("NOT_FOUND", `event ${eventId} of instance ${instanceId} not found`);
  return events;
}

/**
 * Folds the events up to the point into its ledger and finds the state saved last. A fresh run (a
 * re-invocation: version N+1 from the entry node) starts from the initial state again.
 */
export async function runPointOf(args: { instanceId: string; eventId: number; events: readonly StoredEvent[]; snapshots: StateSnapshotReader }): Promise<RunPoint> {
  const promoted = new Map<string, PendingAtPoint>();
  // A node announces its outputs' promotion just before its node_completed (node-lifecycle.ts), all
  // after one commit. A point between the two is taken as before that completion, as `running` and the
  // state are: the node runs again and delivers again, so its announced outputs are not open yet.
  const announcedBy = new Map<string, string>();
  const consumerOf = new Map<string, string>();
  const completed = new Set<string>();
  const running = new Map<string, string>();
  let completions: { invocationId: string; node: string; eventId: number }[] = [];
  let ended = false;
  let fresh = false;
  for (const { id, event: e } of args.events) {
    switch (e.type) {
      case "run_started":
        ended = false;
        if (e.mode === "fresh") {
          completions = [];
          fresh = true;
        }
        break;
      case "deliver_promoted":
        promoted.set(e.deliverId, { deliverId: e.deliverId, source: e.source, target: e.target, content: e.payload });
        if ([...running.values()].includes(e.source)) announcedBy.set(e.deliverId, e.source);
        break;
      case "deliver_consumed":
        consumerOf.set(e.deliverId, e.invocationId);
        break;
      case "node_started":
        running.set(e.invocationId, e.node);
        break;
      case "node_completed":
        running.delete(e.invocationId);
        for (const [deliverId, source] of announcedBy) if (source === e.node) announcedBy.delete(deliverId);
        completed.add(e.invocationId);
        completions.push({ invocationId: e.invocationId, node: e.node, eventId: id });
        if (e.node === END) ended = true;
        break;
      case "node_failed":
      case "node_cancelled":
        running.delete(e.invocationId);
        break;
      default:
        break;
    }
  }
  const pending = [...promoted.values()].filter((d) => {
    if (announcedBy.has(d.deliverId)) return false;
    const consumer = consumerOf.get(d.deliverId);
    return consumer === undefined || !completed.has(consumer);
  });
  let stateJson: string | null = null;
  let asOf: RunPoint["asOf"] = null;
  for (let i = completions.length - 1; i >= 0 && stateJson === null; i--) {
    stateJson = await args.snapshots.get(completions[i].invocationId);
    if (stateJson !== null) asOf = completions[i];
  }
  if (stateJson === null && !fresh) stateJson = await args.snapshots.seedOf(args.instanceId);
  const last = args.events[args.events.length - 1];
  return {
    instanceId: args.instanceId,
    eventId: args.eventId,
    eventNumber: args.events.length,
    version: last?.version ?? 1,
    stateJson,
    initial: asOf === null,
    asOf,
    pending,
    running: [...new Set(running.values())],
    ended,
  };
}
