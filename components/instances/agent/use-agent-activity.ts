"use client";

import { useEffect, useState } from "react";
import type { StoredEventDto } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";
import type { AgentActivity } from "@/server/agent/graph-node/agent-activity";
import type { LiveDelta } from "@/server/services/agents/agent-runs";

/** One agent activity as the log keeps it (a `node_activity` event). */
export interface ActivityRow {
  id: number;
  at: number;
  node: string;
  invocationId: string;
  activity: AgentActivity;
}

/** Streamed text not yet folded into a `message` activity, per invocation. */
export type LiveText = Map<string, { text: string; attempt: number; iteration: number }>;

/**
 * The instance's agent activity: every `node_activity` event of the log (replayed from the start, then
 * live over the same SSE subscription the view uses) and the streamed text of running turns. A model
 * call's streamed text is dropped once its `message` activity arrives (it holds the same text).
 */
export function useAgentActivity(instanceId: string): { rows: ActivityRow[]; live: LiveText } {
  const client = useModexClient();
  const [rows, setRows] = useState<ActivityRow[]>([]);
  const [live, setLive] = useState<LiveText>(new Map());

  useEffect(() => {
    let lastId = 0;
    let pending: ActivityRow[] = [];
    let raf = 0;
    const flush = () => {
      raf = 0;
      const batch = pending;
      pending = [];
      setRows((r) => [...r, ...batch]);
      setLive((m) => {
        let next: LiveText | null = null;
        for (const row of batch) {
          if (row.activity.kind !== "message" && row.activity.kind !== "turn_ended") continue;
          if (!(next ?? m).has(row.invocationId)) continue;
          next ??= new Map(m);
          next.delete(row.invocationId);
        }
        return next ?? m;
      });
    };
    const sub = client.instances.onEvent.subscribe(
      { instanceId, lastEventId: null },
      {
        onData: (tracked) => {
          const e = ((tracked as { data?: StoredEventDto }).data ?? tracked) as StoredEventDto;
          if (e.id <= lastId) return;
          lastId = e.id;
          if (e.event.type !== "node_activity") return;
          pending.push({ id: e.id, at: e.at, node: e.event.node, invocationId: e.event.invocationId, activity: e.event.activity as unknown as AgentActivity });
          raf ||= requestAnimationFrame(flush);
        },
      },
    );
    return () => {
      if (raf) cancelAnimationFrame(raf);
      sub.unsubscribe();
    };
  }, [client, instanceId]);

  useEffect(() => {
    const sub = client.agentRuns.live.subscribe(
      { instanceId },
      {
        onData: (batch) => {
          const deltas = batch as LiveDelta[];
          setLive((m) => {
            const next = new Map(m);
            for (const d of deltas) {
              // The call ended (its `message` activity holds the text): on a cluster its last pieces are
              // relayed and may come after that activity; the end that follows them clears them.
              if (d.channel === "end") next.delete(d.invocationId);
              if (d.channel !== "text") continue;
              const was = next.get(d.invocationId);
              // A `whole` delta (the text so far, sent first on each (re)connection) replaces what is shown.
              const same = !d.whole && was && was.attempt === d.attempt && was.iteration === d.iteration;
              next.set(d.invocationId, { text: (same ? was.text : "") + d.text, attempt: d.attempt, iteration: d.iteration });
            }
            return next;
          });
        },
      },
    );
    return () => sub.unsubscribe();
  }, [client, instanceId]);

  return { rows, live };
}
