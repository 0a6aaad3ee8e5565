"use client";

import Editor, { type OnMount } from "@monaco-editor/react";
import { memo, useCallback, useEffect, useRef, useState } from "react";
import { setSchemaAssist, setSpecSchema, setupMonaco, YAML_MODEL_URI } from "@/components/graphs/monaco-setup";
import { registerSpecAssist } from "@/components/graphs/spec-completion-provider";
import type { SpecCatalog } from "@/components/graphs/spec-suggestions";
import { useTheme } from "@/components/shell/theme";

const monaco = setupMonaco();

export interface EditorMarker {
  message: string;
  line: number;
  column: number;
  severity: "error" | "warning";
}

/** What the editor page may do to the editor. */
export interface YamlEditorApi {
  revealPosition(line: number, column: number): void;
  getValue(): string;
  setValue(text: string): void;
}

export interface YamlEditorProps {
  defaultValue: string;
  onChange(text: string): void;
  /** Ctrl/Cmd+S inside the editor. The graph editor leaves it out: its page-wide shortcut saves (use-save-shortcut.ts). */
  onSave?(): void;
  onReady?(api: YamlEditorApi): void;
  /** Markers from the server's validation (compiler errors at their line and column). */
  markers: readonly EditorMarker[];
  schema?: Record<string, unknown> | null;
  /**
   * A graph spec's completion and hover (node types, config keys, node names, agents) instead of the
   * schema's; the keys of the format work before the catalog's requests have answered (null fields).
   */
  specCatalog?: SpecCatalog;
}

declare global {
  interface Window {
    /** Tests read the editor's text through the model, not the DOM. */
    __modexMonaco?: typeof monaco;
  }
}

/**
 * One object for the editor's lifetime: @monaco-editor/react calls `updateOptions` (a deep clone and
 * validation of every option) whenever it gets a new one. Sticky scroll, provider-driven folding,
 * links and the code-action light bulb each ask monaco-yaml's worker for the whole document's symbols,
 * ranges or actions after every keystroke and process the answer on the main thread (thousands of
 * symbols for a 200-node spec), so they are off; folding follows the indentation instead. Completion
 * as you type waits for a pause (`quickSuggestionsDelay`): each request has monaco-yaml's worker parse
 * and schema-match the whole document (0.1–0.5 s of a core for 200 nodes), which on every keystroke
 * took a core from the typing itself. Trigger characters (space, colon) still open it at once.
 * Minimap section headers are computed (in Monaco's worker, after every edit) even with no minimap.
 * Bracket matching (like bracket pair colorization, off in the model: monaco-setup.ts) keeps a bracket
 * tree of the whole document, updated in every edit; a spec's brackets are one-line flow maps
 * (`{ from: a, to: b }`), so it does not earn its place in a keystroke.
 */
const OPTIONS: Parameters<typeof Editor>[0]["options"] = {
  fontSize: 13,
  lineHeight: 20,
  fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
  minimap: { enabled: false, showRegionSectionHeaders: false, showMarkSectionHeaders: false },
  wordWrap: "on",
  scrollBeyondLastLine: false,
  tabSize: 2,
  insertSpaces: true,
  automaticLayout: true,
  renderLineHighlight: "line",
  padding: { top: 12 },
  quickSuggestions: { other: true, comments: false, strings: true },
  quickSuggestionsDelay: 400,
  fixedOverflowWidgets: true,
  stickyScroll: { enabled: false },
  foldingStrategy: "indentation",
  links: false,
  lightbulb: { enabled: monaco.editor.ShowLightbulbIconMode.Off },
  occurrencesHighlight: "off",
  matchBrackets: "never",
};

/**
 * Monaco on the spec's YAML, with completion and hover: a graph spec's own (`specCatalog`), or else
 * monaco-yaml's from the JSON Schema (`schema`). The
 * wrapper has the `nokey` class so React Flow's document-wide key handlers leave typing alone.
 */
export default memo(YamlEditor);

/** Re-renders only when its markers, schema or catalog change: the text lives in Monaco's model, not in props. */
function YamlEditor({ defaultValue, onChange, onSave, onReady, markers, schema, specCatalog }: YamlEditorProps) {
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  const changeRef = useRef(onChange);
  changeRef.current = onChange;
  const handleChange = useCallback((v: string | undefined) => changeRef.current(v ?? ""), []);
  const editorRef = useRef<Parameters<OnMount>[0] | null>(null);
  const catalogRef = useRef(specCatalog);
  catalogRef.current = specCatalog;
  const specAssist = specCatalog !== undefined;
  const [model, setModel] = useState<ReturnType<Parameters<OnMount>[0]["getModel"]>>(null);

  useEffect(() => {
    if (!specAssist || !model) return;
    setSchemaAssist(false);
    const assist = registerSpecAssist(monaco, model, () => catalogRef.current ?? { nodeTypes: null, agents: null });
    return () => {
      assist.dispose();
      setSchemaAssist(true);
    };
  }, [specAssist, model]);

  useEffect(() => {
    if (schema) setSpecSchema(schema);
  }, [schema]);

  // The app's theme (the person's choice, or the system's while it is System), live: Editor applies a changed theme prop.
  const theme = useTheme() === "light" ? "modex-light" : "modex-dark";

  useEffect(() => {
    const model = monaco.editor.getModel(monaco.Uri.parse(YAML_MODEL_URI));
    if (!model) return;
    const lineCount = model.getLineCount();
    monaco.editor.setModelMarkers(
      model,
      "modex-server",
      markers.map((m) => {
        const line = Math.min(Math.max(1, m.line), lineCount);
        const column = Math.max(1, m.column);
        const end = Math.max(column + 1, model.getLineMaxColumn(line));
        return {
          message: m.message,
          severity: m.severity === "error" ? monaco.MarkerSeverity.Error : monaco.MarkerSeverity.Warning,
          startLineNumber: line,
          startColumn: column,
          endLineNumber: line,
          endColumn: end,
          source: "modex",
        };
      }),
    );
  }, [markers]);

  const onMount: OnMount = (editor) => {
    editorRef.current = editor;
    window.__modexMonaco = monaco;
    setModel(editor.getModel());
    if (saveRef.current) editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current?.());
    onReady?.({
      revealPosition(line, column) {
        editor.setPosition({ lineNumber: line, column });
        editor.revealLineInCenter(line);
        editor.focus();
      },
      getValue: () => editor.getValue(),
      setValue: (text) => editor.setValue(text),
    });
  };

  return (
    <div className="nokey h-full w-full" data-testid="yaml-editor">
      <Editor
        path={YAML_MODEL_URI}
        defaultLanguage="yaml"
        defaultValue={defaultValue}
        theme={theme}
        onChange={handleChange}
        onMount={onMount}
        loading={<div className="p-4 text-sm text-zinc-500">Loading the editor…</div>}
        options={OPTIONS}
      />
    </div>
  );
}

