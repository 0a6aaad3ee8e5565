"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { TabBar } from "@/components/ui/tab-bar";

/**
 * The run's shared knowledge base: the five files (findings, decisions, open questions, context, and the
 * changelog with each write's diff), refreshed whenever an agent's knowledge_base call returns (`changes`)
 * and every few seconds while the run goes on.
 */
export function KnowledgeTab({ instanceId, changes, running }: { instanceId: string; changes: number; running: boolean }) {
  const client = useModexClient();
  const [pattern, setPattern] = useState("findings");
  const kb = useQuery({
    queryKey: ["agentRuns", "knowledge", instanceId, changes],
    queryFn: () => client.agentRuns.knowledge.query({ instanceId }),
    refetchInterval: running ? 3_000 : false,
    placeholderData: (previous) => previous,
  });
  if (kb.error) return <p role="alert" className="px-4 py-3 text-xs text-rose-300">Knowledge base: {errorMessage(kb.error)}</p>;
  const data = kb.data;
  if (!data) return <p className="px-4 py-3 text-xs text-zinc-500">Loading the knowledge base…</p>;
  if (!data.enabled) return <p className="px-4 py-3 text-xs text-zinc-500">This server keeps no knowledge base (no workspace).</p>;
  const file = data.files.find((f) => f.pattern === pattern) ?? data.files[0];
  return (
    <section aria-label="Knowledge base" data-testid="knowledge-tab" className="px-4 py-3">
      <TabBar
        label="Knowledge files"
        look="small"
        value={file.pattern}
        onChange={setPattern}
        tabs={data.files.map((f) => ({
          value: f.pattern,
          label: (
            <>
              {f.pattern.replace("_", " ")} <span className="text-zinc-500">{f.lines}</span>
            </>
          ),
        }))}
      />
      <pre data-testid={`knowledge-${file.pattern}`} className="mt-2 max-h-96 overflow-auto whitespace-pre-wrap rounded bg-white/5 p-2 text-[11px] text-zinc-200">
        {file.text || "(empty)"}
      </pre>
    </section>
  );
}
