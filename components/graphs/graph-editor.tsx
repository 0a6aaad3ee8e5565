"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { flushSync } from "react-dom";
import type { SpecDetail } from "@/components/api/contract";
import type { LayoutJson } from "@/shared/canvas/elk-layout";
import { errorCode, errorMessage, useModexClient } from "@/components/api/modex-client";
import { clearDraft, draftKey } from "@/components/graphs/editor-draft";
import { DraftBanner, LeaveDialog, NameTakenDialog } from "@/components/graphs/editor-dialogs";
import { HistoryDialog } from "@/components/graphs/history-dialog";
import { NewGraphDialog } from "@/components/graphs/new-graph-dialog";
import { PlainYamlEditor } from "@/components/graphs/plain-yaml-editor";
import { RunDialog } from "@/components/graphs/run-dialog";
import { SpecNotFound } from "@/components/graphs/spec-not-found";
import { downloadYaml } from "@/components/graphs/spec-copy";
import { SpecPreview } from "@/components/graphs/spec-preview";
import type { SpecCatalog } from "@/components/graphs/spec-suggestions";
import { SplitHandle } from "@/components/graphs/split-handle";
import { useEditorDraft } from "@/components/graphs/use-editor-draft";
import { useEditorSplit } from "@/components/graphs/use-editor-split";
import { useLeaveGuard } from "@/components/graphs/use-leave-guard";
import { useMonacoHandover } from "@/components/graphs/use-monaco-handover";
import { useSaveShortcut, useSaveShortcutLabel } from "@/components/graphs/use-save-shortcut";
import { useServerValidation } from "@/components/graphs/use-server-validation";
import { useSpecTopology } from "@/components/graphs/use-spec-text";
import { ValidationStatus } from "@/components/graphs/validation-status";
import { CopyButton } from "@/components/shell/copy-button";
import { Button } from "@/components/ui/button";
import { RESTORE_NEEDS_SAVED_TEXT } from "@/components/ui/restore-revision";
import { Skeleton } from "@/components/ui/skeleton";

// Monaco is most of the page's weight: its chunk is requested as soon as this module runs (at
// hydration), not when the spec's text has arrived, so the two downloads overlap.
const loadYamlEditor = () => import("@/components/graphs/yaml-editor");
if (typeof window !== "undefined") void loadYamlEditor();

// Until it is ready, the page shows the text in a plain text area (PlainYamlEditor) instead.
const YamlEditor = dynamic(loadYamlEditor, { ssr: false, loading: () => null });

type Notice = { kind: "ok" | "info" | "error"; text: string } | null;

/** What the server found while rendering the page: the spec, or that there is none of that name. */
export type InitialSpec = { spec: SpecDetail } | { notFound: string };

export interface GraphEditorProps {
  /** The saved spec's name; null for a new, unsaved one. */
  name: string | null;
  /** Text of an unsaved spec (from a template). */
  initialYaml?: string;
  /** Fetched on the server (undefined: the browser fetches it). */
  initial?: InitialSpec;
  /** ELK's layout of the saved spec's graph, computed on the server: the preview starts with it. */
  initialLayout?: LayoutJson | null;
}

/** The YAML editor beside its live topology preview, with save, history and run; unsaved text is never lost. */
export function GraphEditor({ name, initialYaml, initial, initialLayout }: GraphEditorProps) {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const serverSpec = initial && "spec" in initial ? initial.spec : undefined;
  const spec = useQuery({
    queryKey: ["specs", "get", name],
    queryFn: () => client.specs.get.query({ spec: name as string }),
    enabled: name !== null && !(initial && "notFound" in initial),
    staleTime: Infinity,
    initialData: serverSpec,
    retry: (n, e) => errorCode(e) !== "NOT_FOUND" && n < 2,
  });
  // Completion's node types and agents: the editor does not wait for them (the format's keys work at once).
  const nodeTypes = useQuery({ queryKey: ["specs", "nodeTypes"], queryFn: () => client.specs.nodeTypes.query(), staleTime: Infinity, retry: false });
  const agents = useQuery({ queryKey: ["agents", "list"], queryFn: () => client.agents.list.query(), staleTime: 60_000, retry: false });
  const specCatalog = useMemo<SpecCatalog>(() => ({ nodeTypes: nodeTypes.data ?? null, agents: agents.data ?? null }), [nodeTypes.data, agents.data]);

  const loadedYaml = name === null ? (initialYaml ?? "") : spec.data?.yaml;
  const [text, setText] = useState<string | null>(() => loadedYaml ?? null);
  // What the editor starts with: a prop that does not follow the text, so a keystroke (which changes
  // `text`) does not re-render the memoized editor.
  const [editorSeed, setEditorSeed] = useState<string | null>(() => loadedYaml ?? null);
  const [savedText, setSavedText] = useState<string | null>(() => (name === null ? null : (loadedYaml ?? null)));
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
  // What was typed into the plain text area before Monaco was ready is carried over, cursor included.
  const { editorApi, editorReady, plainSelection, onEditorReady } = useMonacoHandover(current);
  const [notice, setNotice] = useState<Notice>(null);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [duplicateOpen, setDuplicateOpen] = useState(false);
  const [runOpen, setRunOpen] = useState(false);
  const [nameTaken, setNameTaken] = useState<{ name: string; yaml: string } | null>(null);
  const dirty = savedText === null || current !== savedText;
  // The name the spec is saved under: the route's, or the one a new spec got at its first save.
  const [savedName, setSavedName] = useState<string | null>(name);
  const [savedSpecId, setSavedSpecId] = useState<string | null>(serverSpec?.specId ?? null);
  useEffect(() => {
    if (spec.data && savedSpecId === null) setSavedSpecId(spec.data.specId);
  }, [spec.data, savedSpecId]);

  const newName = name === null ? (nameOf(initialYaml ?? "") ?? null) : null;
  const unchanged = savedText !== null ? current === savedText : current === (initialYaml ?? "");
  const draft = useEditorDraft({ key: draftKey(savedName, newName), seed: editorSeed, text: current, unchanged, baseSpecId: savedSpecId });
  // A new graph from an untouched template holds nothing worth a question.
  const guard = useLeaveGuard(!unchanged);
  const split = useEditorSplit();
  const shortcut = useSaveShortcutLabel();

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), notice.kind === "error" ? 15_000 : 5000);
    return () => clearTimeout(t);
  }, [notice]);
  // A failed save's message is about the text it tried: once the text changes it is stale, and must
  // not stand beside the new text's "✓ compiles".
  useEffect(() => setNotice((n) => (n?.kind === "error" ? null : n)), [current]);

  const afterSave = useRef<(() => void) | null>(null);
  const save = useMutation({
    mutationFn: (yaml: string) => client.specs.save.mutate({ yaml }),
    onSuccess: (result, yaml) => {
      setSavedText(yaml);
      setSavedSpecId(result.specId);
      setNotice(result.created ? { kind: "ok", text: "Saved as a new version" } : { kind: "info", text: "No changes: this is the latest saved version" });
      void queryClient.invalidateQueries({ queryKey: ["specs"] });
      if (savedName === null && newName) clearDraft(draftKey(null, newName));
      if (result.name !== savedName) {
        setSavedName(result.name);
        // The URL follows the name without remounting the editor (its undo history stays).
        window.history.replaceState(null, "", `/graphs/${encodeURIComponent(result.name)}`);
      }
      const then = afterSave.current;
      afterSave.current = null;
      then?.();
    },
    onError: (e) => {
      afterSave.current = null;
      setNotice({ kind: "error", text: `Not saved: ${errorMessage(e)}` });
    },
  });
  const [checkingName, setCheckingName] = useState(false);

  /** Saves, first asking when the text's `name:` is another graph that already exists. */
  const saveNow = useCallback(
    async (then?: () => void) => {
      if (save.isPending || checkingName) return;
      const yaml = editorApi.current?.getValue() ?? current;
      const target = nameOf(yaml);
      afterSave.current = then ?? null;
      if (target && target !== savedName) {
        setCheckingName(true);
        const exists = await client.specs.get.query({ spec: target }).then(
          (s) => s.name === target,
          () => false, // not found, or the check failed: the save itself reports any error
        );
        setCheckingName(false);
        if (exists) return setNameTaken({ name: target, yaml });
      }
      save.mutate(yaml);
    },
    [save, checkingName, current, savedName, client],
  );
  useSaveShortcut(() => void saveNow());
  const onPlainChange = useCallback((next: string) => setText(next), []);
  // Monaco delivers a typed character in an EditContext `textupdate` event, which React would render
  // at default priority in a later task, usually after the next frame (Backspace arrives in `keydown`
  // and renders at once). Rendering synchronously puts every edit in the preview in the same frame.
  const onEditorChange = useCallback((next: string) => flushSync(() => setText(next)), []);

  const restoreDraft = () => {
    const d = draft.take();
    if (d) editorApi.current?.setValue(d.text);
  };

  const restore = useMutation({
    mutationFn: (yaml: string) => client.specs.save.mutate({ yaml }),
    onSuccess: (result, yaml) => {
      editorApi.current?.setValue(yaml);
      setText(yaml);
      setSavedText(yaml);
      setSavedSpecId(result.specId);
      setHistoryOpen(false);
      setNotice({ kind: "ok", text: result.created ? "Restored: saved as the newest version" : "That version is already the newest" });
      void queryClient.invalidateQueries({ queryKey: ["specs"] });
    },
  });

  const revealNode = useCallback(
    (id: string) => {
      const node = preview.topology?.nodes.find((n) => n.id === id);
      if (node?.line) editorApi.current?.revealPosition(node.line, node.column ?? 1);
    },
    [preview.topology],
  );

  if (name !== null && initial && "notFound" in initial) return <SpecNotFound name={name} message={initial.notFound} />;
  if (name !== null && spec.isError) return <SpecNotFound name={name} message={errorMessage(spec.error)} notFound={errorCode(spec.error) === "NOT_FOUND"} />;

  const displayName = nameOf(current) ?? savedName ?? "untitled";
  const runBlocked = dirty ? "Save the spec first: a run uses a saved version" : validation.state === "invalid" ? "Fix the errors first" : undefined;
  const saving = save.isPending || checkingName;

  return (
    <main className="flex h-[calc(100dvh-3.5rem)] min-w-[1024px] flex-col">
      <div className="flex h-12 shrink-0 items-center gap-3 border-b border-white/10 px-4">
        <Link href="/graphs" className="text-sm text-zinc-400 hover:text-white">
          Graphs
        </Link>
        <span className="text-zinc-600">/</span>
        <h1 className="text-sm font-semibold text-white" data-testid="spec-name">{displayName}</h1>
        {spec.data?.version && <span className="rounded border border-white/10 px-1.5 py-0.5 font-mono text-[11px] text-zinc-400">v{spec.data.version}</span>}
        {savedSpecId && <CopyButton value={savedSpecId} label="Copy id" />}
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
          <Button size="sm" variant="ghost" onClick={() => downloadYaml(displayName, current)} title={`Download the text in the editor as ${displayName}.yml${dirty ? " (with its unsaved changes)" : ""}`}>
            Download
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setDuplicateOpen(true)} disabled={savedName === null} title={savedName === null ? "Save once to duplicate it" : "Open a copy of the saved version under a new name"}>
            Duplicate…
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setHistoryOpen(true)} disabled={savedName === null} title={savedName === null ? "Save once to start a history" : "Compare saved versions, restore one"}>
            History
          </Button>
          <Button size="sm" onClick={() => void saveNow()} disabled={saving} title={`Save (${shortcut})`}>
            {saving ? "Saving…" : "Save"} <kbd data-testid="save-shortcut" className="ml-1 rounded bg-white/10 px-1 font-sans text-[10px] text-zinc-400">{shortcut}</kbd>
          </Button>
          <Button size="sm" variant="primary" onClick={() => setRunOpen(true)} disabled={!!runBlocked} title={runBlocked ?? "Start an instance of the saved version"}>
            ▶ Run
          </Button>
        </div>
      </div>
      {draft.offered && editorReady && <DraftBanner draft={draft.offered} savedSpecId={savedSpecId} onRestore={restoreDraft} onDiscard={draft.discard} />}
      <div ref={split.row} className="flex min-h-0 flex-1">
        <section aria-label="YAML" className="min-w-0 shrink-0 bg-[var(--modex-editor-bg)]" style={{ flexBasis: `${split.share * 100}%` }}>
          {editorSeed === null ? (
            <div className="space-y-2 p-4" aria-label="Loading the graph">{[60, 45, 70].map((w) => <Skeleton key={w} className="h-3.5" />)}</div>
          ) : (
            <div className="relative h-full w-full">
              <YamlEditor defaultValue={editorSeed} onChange={onEditorChange} onReady={onEditorReady} markers={markers} specCatalog={specCatalog} />
              {!editorReady && (
                <div className="absolute inset-0 z-10 bg-[var(--modex-editor-bg)]">
                  <PlainYamlEditor value={current} onChange={onPlainChange} selectionRef={plainSelection} />
                </div>
              )}
            </div>
          )}
        </section>
        <SplitHandle split={split} />
        <section aria-label="Preview" className="relative min-w-0 flex-1">
          <SpecPreview topology={preview.topology} problem={preview.problem} onNodeClick={revealNode} initialLayout={initialLayout} layoutChanges={split.layoutChanges} />
        </section>
      </div>
      {savedName !== null && (
        <HistoryDialog
          open={historyOpen}
          onClose={() => setHistoryOpen(false)}
          name={savedName}
          restoreBlocked={dirty ? RESTORE_NEEDS_SAVED_TEXT : restore.isPending ? "Restoring…" : undefined}
          restoreError={restore.isError ? errorMessage(restore.error) : null}
          onRestore={(yaml) => restore.mutate(yaml)}
        />
      )}
      {duplicateOpen && savedName !== null && <NewGraphDialog open from={savedName} onClose={() => setDuplicateOpen(false)} />}
      {runOpen && <RunDialog open onClose={() => setRunOpen(false)} specRef={savedName ?? ""} />}
      <LeaveDialog
        href={guard.pendingHref}
        saving={saving}
        onStay={guard.stay}
        onLeave={guard.leave}
        onSaveAndLeave={() => void saveNow(guard.leave)}
      />
      <NameTakenDialog
        name={nameTaken?.name ?? null}
        onCancel={() => setNameTaken(null)}
        onConfirm={() => {
          const pending = nameTaken;
          setNameTaken(null);
          if (pending) save.mutate(pending.yaml);
        }}
      />
    </main>
  );
}

/** The `name:` at the top level of the YAML, read without a full parse. */
function nameOf(yaml: string): string | undefined {
  const m = /^name:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$/m.exec(yaml);
  return m?.[1];
}
