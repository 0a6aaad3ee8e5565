import type { GraphInstanceRecord } from "@/server/graph/persistence/records";

/**
 * What started a run, written into the instance's attrs when it is created (one write with it) and
 * shown in the instance summary: a person in the web app, a REST client (token or modexctl), a
 * schedule's fire, or a webhook call.
 */
export type StartedBy =
  | { kind: "user" }
  | { kind: "api" }
  | { kind: "schedule"; name: string; fireAt: number }
  | { kind: "webhook"; name: string };

export const STARTED_BY_ATTR = "started_by";

const KINDS = new Set(["user", "api", "schedule", "webhook"]);

/** The attrs entry a create writes. */
export const startedByAttrs = (startedBy: StartedBy | undefined): Record<string, unknown> =>
  startedBy ? { [STARTED_BY_ATTR]: startedBy } : {};

/** What started an instance, or null for runs made before this was recorded (or by the chat). */
export function startedByOf(instance: Pick<GraphInstanceRecord, "attrs">): StartedBy | null {
  const value = (instance.attrs as Record<string, unknown> | undefined)?.[STARTED_BY_ATTR] as StartedBy | undefined;
  return value && typeof value === "object" && KINDS.has(value.kind) ? value : null;
}

/** One line for people: "webhook github-push", "schedule nightly", "user", "API". */
export function describeStartedBy(startedBy: StartedBy | null): string {
  if (!startedBy) return "unknown";
  switch (startedBy.kind) {
    case "schedule":
      return `schedule ${startedBy.name}`;
    case "webhook":
      return `webhook ${startedBy.name}`;
    case "api":
      return "API";
    default:
      return "user";
  }
}
