"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { AgentRevisionDialog } from "@/components/agents/agent-revision-dialog";
import { AgentRevisions, type RevisionRef } from "@/components/agents/agent-revisions";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { newAgentYaml } from "@/components/agents/agent-template";
import { McpServersPanel } from "@/components/agents/mcp-servers-panel";
import { ToolCatalogPanel } from "@/components/agents/tool-catalog-panel";
import { useAgentValidation } from "@/components/agents/use-agent-validation";
import { ValidationStatus } from "@/components/graphs/validation-status";
import { useSaveShortcutLabel } from "@/components/graphs/use-save-shortcut";
import { PlainYamlEditor } from "@/components/graphs/plain-yaml-editor";
import { useMonacoHandover } from "@/components/graphs/use-monaco-handover";
import { Button } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { RESTORE_NEEDS_SAVED_TEXT } from "@/components/ui/restore-revision";
import { Skeleton } from "@/components/ui/skeleton";

// The graph editor's Monaco (bundled, with monaco-yaml), given the agent definition's JSON Schema.
// Until it is ready, the definition shows (and edits) in a plain text area, as in the graph editor.
const YamlEditor = dynamic(() => import("@/components/graphs/yaml-editor"), { ssr: false, loading: () => null });

type Notice = { kind: "ok" | "info" | "error"; text: string } | null;

/**
 * One agent definition in Monaco (completion, hover and validation from the definition's JSON Schema,
 * plus the server's located issues as markers), saved as a new revision when its content changed.
 * `name` null: a new agent from the template.
 */
export function AgentEditor({ name, onSaved }: { name: string | null; onSaved(name: string): void }) {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const agent = useQuery({ queryKey: ["agents", "get", name], queryFn: () => client.agents.get.query({ agent: name as string }), enabled: name !== null, staleTime: Infinity });
  const schema = useQuery({ queryKey: ["agents", "jsonSchema"], queryFn: () => client.agents.jsonSchema.query(), staleTime: Infinity, retry: false });
  const tools = useQuery({ queryKey: ["agents", "tools"], queryFn: () => client.agents.tools.query(), staleTime: 60_000 });

  const loaded = name === null ? newAgentYaml("my-agent") : agent.data?.yaml;
  const [text, setText] = useState<string | null>(null);
  const [seed, setSeed] = useState<string | null>(null);
  const [savedText, setSavedText] = useState<string | null>(null);
  useEffect(() => {
    if (loaded !== undefined && text === null) {
      setText(loaded);
      setSeed(loaded);
      setSavedText(name === null ? null : loaded);
    }
  }, [loaded, text, name]);

  const current = text ?? loaded ?? "";
  const { validation, markers } = useAgentValidation(current);
  // Monaco takes over from the plain text area with what was typed there, and the cursor where it was.
  const { editorApi, editorReady, plainSelection, onEditorReady } = useMonacoHandover(current);
  const [notice, setNotice] = useState<Notice>(null);
  const dirty = savedText === null || current !== savedText;

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 5000);
    return () => clearTimeout(t);
  }, [notice]);

  const save = useMutation({
    mutationFn: (yaml: string) => client.agents.save.mutate({ yaml }),
    onSuccess: (result, yaml) => {
      setSavedText(yaml);
      setNotice(result.created ? { kind: "ok", text: "Saved as a new revision" } : { kind: "info", text: "No changes: this is the latest saved revision" });
      void queryClient.invalidateQueries({ queryKey: ["agents"] });
      if (result.name !== name) onSaved(result.name);
    },
    onError: (e) => setNotice({ kind: "error", text: `Not saved: ${errorMessage(e)}` }),
  });
  // Restore is the graph History's: the revision saved at once as the newest (nothing is lost: the
  // history keeps every revision), refused while the editor holds unsaved changes it would replace.
  const [openRevision, setOpenRevision] = useState<RevisionRef | null>(null);
  const restore = useMutation({
    mutationFn: (yaml: string) => client.agents.save.mutate({ yaml }),
    onSuccess: (result, yaml) => {
      editorApi.current?.setValue(yaml);
      setText(yaml);
      setSavedText(yaml);
      setOpenRevision(null);
      setNotice({ kind: "ok", text: result.created ? "Restored: saved as the newest revision" : "That revision's content is already the latest" });
      void queryClient.invalidateQueries({ queryKey: ["agents"] });
    },
  });
  const saveNow = useCallback(() => {
    if (!save.isPending) save.mutate(editorApi.current?.getValue() ?? current);
  }, [save, current]);
  const saveRef = useRef(saveNow);
  saveRef.current = saveNow;
  const onEditorSave = useCallback(() => saveRef.current(), []);
  const onEditorChange = useCallback((next: string) => flushSync(() => setText(next)), []);
  const onPlainChange = useCallback((next: string) => setText(next), []);
  const shortcut = useSaveShortcutLabel();

  if (name !== null && agent.isError) {
    return (
      <div className="p-6">
        <ErrorState title={`Could not open the agent “${name}”`} error={agent.error} onRetry={() => void agent.refetch()} />
      </div>
    );
  }

  const shownName = /^name:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$/m.exec(current)?.[1] ?? name ?? "new agent";
  const selectedTools = /^tools:\s*\[([^\]]*)\]/m.exec(current)?.[1].split(",").map((s) => s.trim()) ?? [];

  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="agent-editor">
      <div className="flex h-12 shrink-0 items-center gap-3 border-b border-white/10 px-4">
        <h2 className="text-sm font-semibold text-white" data-testid="agent-name">{shownName}</h2>
        <span className={`text-xs ${dirty ? "text-amber-300" : "text-zinc-500"}`} data-testid="dirty-state">
          {savedText === null ? "not saved yet" : dirty ? "unsaved changes" : "saved"}
        </span>
        <ValidationStatus validation={validation} />
        {name !== null && <AgentRevisions name={name} onOpen={(r) => {
              restore.reset();
              setOpenRevision(r);
            }} />}
        <div className="ml-auto flex items-center gap-2">
          {notice && (
            <span role="status" data-testid="save-notice" className={`text-xs font-medium ${notice.kind === "ok" ? "text-emerald-300" : notice.kind === "error" ? "text-rose-300" : "text-zinc-300"}`}>
              {notice.text}
            </span>
          )}
          {name !== null && (
            <Link href={`/chat?agent=${encodeURIComponent(name)}`} className="text-xs text-zinc-400 hover:text-white">
              Chat with it →
            </Link>
          )}
          {/* Outlined as the graph editor's Save: whether there is anything to save is what the state beside the name says. */}
          <Button size="sm" onClick={saveNow} disabled={save.isPending} title={`Save (${shortcut})`}>
            {save.isPending ? "Saving…" : "Save"} <kbd data-testid="save-shortcut" className="ml-1 rounded bg-white/10 px-1 font-sans text-[10px] text-zinc-400">{shortcut}</kbd>
          </Button>
        </div>
      </div>
      {/* Below 1280 px the reference (use, tools, MCP servers) goes under the YAML, in three columns: beside
          it, with the agents list on the left, the YAML was 416 px wide at 1024 px, too narrow to edit. */}
      <div className="flex min-h-0 flex-1 flex-col xl:flex-row">
        <section aria-label="YAML" data-testid="agent-yaml" className="min-h-0 min-w-0 flex-1 border-white/10 bg-[var(--modex-editor-bg)] xl:border-r">
          {seed === null ? (
            <div className="space-y-2 p-4">{[60, 45, 70].map((w) => <Skeleton key={w} className="h-3.5" />)}</div>
          ) : (
            <div className="relative h-full w-full">
              <YamlEditor defaultValue={seed} onChange={onEditorChange} onSave={onEditorSave} onReady={onEditorReady} markers={markers} schema={schema.data ?? null} />
              {!editorReady && (
                <div className="absolute inset-0 z-10 bg-[var(--modex-editor-bg)]">
                  <PlainYamlEditor value={current} onChange={onPlainChange} selectionRef={plainSelection} />
                </div>
              )}
            </div>
          )}
        </section>
        <aside data-testid="agent-reference" className="grid h-56 shrink-0 grid-cols-3 gap-6 overflow-y-auto border-t border-white/10 p-4 xl:block xl:h-auto xl:w-80 xl:space-y-6 xl:border-t-0">
          <div>
            <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">Use it</h2>
            <p className="mt-2 text-xs leading-5 text-zinc-400">In a graph spec, as a node:</p>
            <pre className="mt-1 rounded-lg bg-zinc-900 px-3 py-2 font-mono text-[11px] text-zinc-200">{`- name: ${shownName}\n  node_type: agent\n  config: { agent: ${shownName} }`}</pre>
            <p className="mt-2 text-xs leading-5 text-zinc-400">In the chat: pick it when a chat starts.</p>
          </div>
          {tools.data && <ToolCatalogPanel tools={tools.data} selected={selectedTools} />}
          <McpServersPanel />
        </aside>
      </div>
      {name !== null && openRevision && (
        <AgentRevisionDialog
          name={name}
          revision={openRevision}
          editorText={current}
          editorDirty={dirty}
          onClose={() => setOpenRevision(null)}
          onRestore={(yaml) => restore.mutate(yaml)}
          restoreBlocked={dirty ? RESTORE_NEEDS_SAVED_TEXT : restore.isPending ? "Restoring…" : undefined}
          restoreError={restore.isError ? errorMessage(restore.error) : null}
        />
      )}
    </div>
  );
}
