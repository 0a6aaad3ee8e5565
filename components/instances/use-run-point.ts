"use client";

import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@/server/api/root";
import { useModexClient } from "@/components/api/modex-client";

/** The graph state and open delivers right after one event of a run (`instances.point`). */
export type RunPointDto = RouterOutputs["instances"]["point"];

/** The point after event `eventId` (null: none asked). Points of the past never change: cached for good. */
export function useRunPoint(instanceId: string, eventId: number | null) {
  const client = useModexClient();
  return useQuery({
    queryKey: ["instances", "point", instanceId, eventId],
    queryFn: () => client.instances.point.query({ instanceId, eventId: eventId! }),
    enabled: eventId !== null,
    staleTime: Infinity,
    placeholderData: (previous) => previous,
  });
}

/** Type problems of an edited state against the spec's declared fields (the server checks again). */
export function stateProblems(state: unknown, fields: readonly { name: string; type: string }[]): string[] {
  if (state === null || typeof state !== "object" || Array.isArray(state)) return ["the state must be a JSON object"];
  const problems: string[] = [];
  for (const f of fields) {
    const value = (state as Record<string, unknown>)[f.name];
    if (value === undefined || f.type === "any") continue;
    const actual = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
    if (actual !== f.type) problems.push(`${f.name}: expected ${f.type}, got ${actual}`);
  }
  return problems;
}
