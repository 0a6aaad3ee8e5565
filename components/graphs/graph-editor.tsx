"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { HistoryDialog } from "@/components/graphs/history-dialog";
import { RunDialog } from "@/components/graphs/run-dialog";
import { SpecPreview } from "@/components/graphs/spec-preview";
import { useServerValidation } from "@/components/graphs/use-server-validation";
import { useSpecTopology } from "@/components/graphs/use-spec-text";
import type { YamlEditorApi } from "@/components/graphs/yaml-editor";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { ValidationStatus } from "@/components/graphs/validation-status";

const YamlEditor = dynamic(() => import("@/components/graphs/yaml-editor"), {
  ssr: false,
  loading: () => (
    <div className="space-y-2 p-4" aria-label="Loading the editor">
      {[70, 55, 80, 40, 65, 50].map((w) => (
        <Skeleton key={w} className="h-3.5" />
      ))}
    </div>
  ),
});

type Notice = { kind: "ok" | "info" | "error"; text: string } | null;

export interface GraphEditorProps {
  /** The saved spec's name; null for a new, unsaved one. */
  name: string | null;
  /** Text of an unsaved spec (from a template). */
  initialYaml?: string;
}

/** The YAML editor beside its live topology preview, with save, history and run. */
export function GraphEditor({ name, initialYaml }: GraphEditorProps) {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const spec = useQuery({
    queryKey: ["specs", "get", name],
    queryFn: () => client.specs.get.query({ spec: name as string }),
    enabled: name !== null,
    staleTime: Infinity,
  });
  const schema = useQuery({ queryKey: ["specs", "jsonSchema"], queryFn: () => client.specs.jsonSchema.query(), staleTime: Infinity, retry: false });

  const loadedYaml = name === null ? (initialYaml ?? "") : spec.data?.yaml;
  const [text, setText] = useState<string | null>(null);
  // What the editor starts with: a prop that does not follow the text, so a keystroke (which changes
  // `text`) does not re-render the memoized editor.
  const [editorSeed, setEditorSeed] = useState<string | null>(null);
  const [savedText, setSavedText] = useState<string | null>(null);
  useEffect(() => {
    if (loadedYaml !== undefined && text === null) {
      setText(loadedYaml);
      setEditorSeed(loadedYaml);
      setSavedText(name === null ? null : loadedYaml);
    }
  }, [loadedYaml, text, name]);

  const current = text ?? loadedYaml ?? "";
  const preview = useSpecTopology(current);
  const { validation, markers } = useServerValidation(current);
  const editorApi = useRef<YamlEditorApi | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [runOpen, setRunOpen] = useState(false);
  const dirty = savedText === null || current !== savedText;
  // The name the spec is saved under: the route's, or the one a new spec got at its first save.
  const [savedName, setSavedName] = useState<string | null>(name);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 5000);
    return () => clearTimeout(t);
  }, [notice]);

  const save = useMutation({
    mutationFn: (yaml: string) => client.specs.save.mutate({ yaml }),
    onSuccess: (result, yaml) => {
      setSavedText(yaml);
      setNotice(result.created ? { kind: "ok", text: "Saved as a new version" } : { kind: "info", text: "No changes: this is the latest saved version" });
      void queryClient.invalidateQueries({ queryKey: ["specs"] });
      if (result.name !== savedName) {
        setSavedName(result.name);
        // The URL follows the name without remounting the editor (its undo history stays).
        window.history.replaceState(null, "", `/graphs/${encodeURIComponent(result.name)}`);
      }
    },
    onError: (e) => setNotice({ kind: "error", text: `Not saved: ${errorMessage(e)}` }),
  });
  const saveNow = useCallback(() => {
    if (!save.isPending) save.mutate(editorApi.current?.getValue() ?? current);
  }, [save, current]);
  // The editor gets stable callbacks, so a keystroke does not re-render it.
  const saveRef = useRef(saveNow);
  saveRef.current = saveNow;
  const onEditorSave = useCallback(() => saveRef.current(), []);
  const onEditorReady = useCallback((api: YamlEditorApi) => (editorApi.current = api), []);
  // Monaco delivers a typed character in an EditContext `textupdate` event, which React would render
  // at default priority in a later task, usually after the next frame (Backspace arrives in `keydown`
  // and renders at once). Rendering synchronously puts every edit in the preview in the same frame.
  const onEditorChange = useCallback((next: string) => flushSync(() => setText(next)), []);

  const revealNode = useCallback(
    (id: string) => {
      const node = preview.topology?.nodes.find((n) => n.id === id);
      if (node?.line) editorApi.current?.revealPosition(node.line, node.column ?? 1);
    },
    [preview.topology],
  );

  if (name !== null && spec.isError) {
    return (
      <main className="mx-auto max-w-6xl px-6 py-10">
        <Link href="/graphs" className="text-sm text-zinc-400 hover:text-white">← Graphs</Link>
        <div className="mt-6 rounded-xl border border-rose-500/30 bg-rose-950/30 px-5 py-4" role="alert">
          <p className="text-sm font-semibold text-rose-100">Could not open the graph “{name}”</p>
          <p className="mt-1 font-mono text-xs text-rose-300/90">{errorMessage(spec.error)}</p>
        </div>
      </main>
    );
  }

  const displayName = nameOf(current) ?? savedName ?? "untitled";
  const runBlocked = dirty ? "Save the spec first: a run uses a saved version" : validation.state === "invalid" ? "Fix the errors first" : undefined;

  return (
    <main className="flex h-[calc(100dvh-3.5rem)] min-w-[1280px] flex-col">
      <div className="flex h-12 shrink-0 items-center gap-3 border-b border-white/10 px-4">
        <Link href="/graphs" className="text-sm text-zinc-400 hover:text-white">
          Graphs
        </Link>
        <span className="text-zinc-600">/</span>
        <h1 className="text-sm font-semibold text-white" data-testid="spec-name">{displayName}</h1>
        {spec.data?.version && <span className="rounded border border-white/10 px-1.5 py-0.5 font-mono text-[11px] text-zinc-400">v{spec.data.version}</span>}
        <span className={`text-xs ${dirty ? "text-amber-300" : "text-zinc-500"}`} data-testid="dirty-state">
          {savedName === null ? "not saved yet" : dirty ? "unsaved changes" : "saved"}
        </span>
        <ValidationStatus validation={validation} />
        <div className="ml-auto flex items-center gap-2">
          {notice && (
            <span role="status" data-testid="save-notice" className={`text-xs font-medium ${notice.kind === "ok" ? "text-emerald-300" : notice.kind === "error" ? "text-rose-300" : "text-zinc-300"}`}>
              {notice.text}
            </span>
          )}
          <Button size="sm" variant="ghost" onClick={() => setHistoryOpen(true)} disabled={savedName === null} title={savedName === null ? "Save once to start a history" : "Compare saved versions"}>
            History
          </Button>
          <Button size="sm" onClick={saveNow} disabled={save.isPending} title="Save (Ctrl+S / ⌘S)">
            {save.isPending ? "Saving…" : "Save"} <kbd className="ml-1 rounded bg-white/10 px-1 font-sans text-[10px] text-zinc-400">⌘S</kbd>
          </Button>
          <Button size="sm" variant="primary" onClick={() => setRunOpen(true)} disabled={!!runBlocked} title={runBlocked ?? "Start an instance of the saved version"}>
            ▶ Run
          </Button>
        </div>
      </div>
      <div className="flex min-h-0 flex-1">
        <section aria-label="YAML" className="min-w-0 basis-[44%] border-r border-white/10 bg-[#0c0c0f]">
          {editorSeed === null ? (
            <div className="space-y-2 p-4">{[60, 45, 70].map((w) => <Skeleton key={w} className="h-3.5" />)}</div>
          ) : (
            <YamlEditor
              defaultValue={editorSeed}
              onChange={onEditorChange}
              onSave={onEditorSave}
              onReady={onEditorReady}
              markers={markers}
              schema={schema.data ?? null}
            />
          )}
        </section>
        <section aria-label="Preview" className="relative min-w-0 flex-1">
          <SpecPreview topology={preview.topology} problem={preview.problem} onNodeClick={revealNode} />
        </section>
      </div>
      {savedName !== null && <HistoryDialog open={historyOpen} onClose={() => setHistoryOpen(false)} name={savedName} />}
      {runOpen && <RunDialog open onClose={() => setRunOpen(false)} specRef={savedName ?? ""} />}
    </main>
  );
}

/** The `name:` at the top level of the YAML, read without a full parse. */
function nameOf(yaml: string): string | undefined {
  const m = /^name:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$/m.exec(yaml);
  return m?.[1];
}
