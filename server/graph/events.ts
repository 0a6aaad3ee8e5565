import type { InstanceStatus } from "./persistence/records";

/**
 * Everything the engine announces while it runs. A closed union: the live instance view and the
 * event log switch over `type` exhaustively, so a new member breaks the build where it must be handled.
 * Events are emitted after the state change they describe is persisted.
 */
export type EngineEvent =
  /** `error`: what ended the run, on a change to failed (a node's error, or the engine's own: max iterations, …). */
  | { type: "instance_status"; instanceId: string; version: number; from: InstanceStatus | null; to: InstanceStatus; error?: string }
  | { type: "run_started"; instanceId: string; version: number; mode: "fresh" | "recovery"; seeds: string[] }
  | { type: "run_finished"; instanceId: string; version: number; reachedEnd: boolean; iterations: number }
  | NodeEvent<"node_started">
  | (NodeEvent<"node_completed"> & { durationMs: number; delivered: number })
  | (NodeEvent<"node_failed"> & { durationMs: number; error: string; attempt?: number; retryInMs?: number })
  | (NodeEvent<"node_cancelled"> & { durationMs: number; reason: string })
  | DeliverEvent<"deliver_staged">
  | DeliverEvent<"deliver_promoted">
  | (DeliverEvent<"deliver_consumed"> & { consumer: string; invocationId: string })
  | { type: "interrupt_raised"; instanceId: string; node: string; value: unknown }
  | { type: "drained"; instanceId: string; reason: "pause" | "stop"; finishing: string[] }
  | NodeActivityEvent;

/**
 * What a node reports while it works, beyond its lifecycle (an agent node's turn: turn started/ended,
 * tool call/result, message, usage). Node types emit it through their context's observer; the engine
 * never does. Coarse by contract: a few per model call, never one per streamed token.
 */
export interface NodeActivityEvent {
  type: "node_activity";
  instanceId: string;
  node: string;
  invocationId: string;
  version: number;
  /** `kind` names it; the node type that emits it defines the rest (agent nodes: server/agent/graph-node/agent-activity.ts). */
  activity: NodeActivity;
}

/** A JSON value (what the event log stores). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One node activity: a kind, a one-line summary for timelines, and JSON the node type defines. */
export interface NodeActivity {
  kind: string;
  summary: string;
  [key: string]: JsonValue;
}

export type EngineEventType = EngineEvent["type"];

interface NodeEvent<T extends string> {
  type: T;
  instanceId: string;
  node: string;
  nodeId: string;
  /** The node instance label, `name#seq`. */
  nodeInstance: string;
  invocationId: string;
  version: number;
}

interface DeliverEvent<T extends string> {
  type: T;
  instanceId: string;
  deliverId: string;
  source: string;
  target: string;
  payload: unknown;
}

/** Receives engine events. Emission is skipped entirely when no observer is attached. */
export interface EngineObserver {
  onEvent(event: EngineEvent): void;
}

/** Collects events in memory; handy for tests and replay. */
export class RecordingObserver implements EngineObserver {
  readonly events: EngineEvent[] = [];
  onEvent(event: EngineEvent): void {
    this.events.push(event);
  }
  ofType<T extends EngineEventType>(type: T): Extract<EngineEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
  }
}
