import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor/editor";
// The editor features a spec's YAML uses, instead of `features/register.all`: each feature is script to
// load, compile and evaluate before the editor shows, and most add a contribution every editor
// instantiates. Monaco's chunks are 3.4 MB instead of 3.9 MB, and a cold load's main-thread work until
// Monaco is ready fell by a fifth to a third (bench/editor-load-bench.mjs). Left out: inline completions,
// code lens, inlay hints, the colour picker, links, sticky scroll, go to definition/references/symbol,
// rename, semantic tokens, word highlighting, section headers, unicode highlighting, font zoom, the diff
// editor, GPU rendering: nothing a YAML spec offers or this editor enables.
import "monaco-editor/features/codicon/register";
import "monaco-editor/features/bracketMatching/register";
import "monaco-editor/features/caretOperations/register";
import "monaco-editor/features/clipboard/register";
import "monaco-editor/features/comment/register";
import "monaco-editor/features/contextmenu/register";
import "monaco-editor/features/cursorUndo/register";
import "monaco-editor/features/dnd/register";
import "monaco-editor/features/find/register";
import "monaco-editor/features/folding/register";
import "monaco-editor/features/format/register";
import "monaco-editor/features/gotoError/register";
import "monaco-editor/features/gotoLine/register";
import "monaco-editor/features/hover/register";
import "monaco-editor/features/indentation/register";
import "monaco-editor/features/lineSelection/register";
import "monaco-editor/features/linesOperations/register";
import "monaco-editor/features/multicursor/register";
import "monaco-editor/features/quickCommand/register";
import "monaco-editor/features/smartSelect/register";
import "monaco-editor/features/snippet/register";
import "monaco-editor/features/suggest/register";
import "monaco-editor/features/toggleTabFocusMode/register";
import "monaco-editor/features/wordOperations/register";
import "monaco-editor/features/wordPartOperations/register";
// `features/suggest` registers only the suggest model: the widget's controller (and Ctrl+Space) comes with
// inline completions in `register.all`, so it is imported by itself.
import "monaco-editor/editor/contrib/suggest/browser/suggestController";
// @ts-expect-error monaco-editor ships no types for its language definitions (typed below).
import * as yamlLanguage from "monaco-editor/languages/definitions/yaml/yaml";
import { configureMonacoYaml, type MonacoYaml } from "monaco-yaml";

/**
 * Monaco from the bundled package (never a CDN), its workers, and monaco-yaml. Import only from
 * client components loaded with `ssr: false`: Monaco touches `window` as it loads.
 *
 * monaco-yaml 5.5 calls `createWebWorker({ moduleId, label, createData })`, the pre-0.53 shape;
 * Monaco 0.57 wants `{ worker }` and expects the first two messages to be a wake-up and the
 * create data (as its own language workers send them). The adapter below does exactly that.
 */

type Monaco = typeof monaco;

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(moduleId: string, label: string): Worker };
  }
}

export const YAML_MODEL_URI = "inmemory://modex/spec.yaml";

let yaml: MonacoYaml | undefined;

function yamlWorkerAdapter(m: Monaco): Monaco {
  const createWebWorker = (opts: { createData?: unknown }) => {
    const worker = new Worker(new URL("monaco-yaml/yaml.worker.js", import.meta.url));
    worker.postMessage("ignore");
    worker.postMessage(opts.createData);
    return m.editor.createWebWorker<object>({ worker });
  };
  return { ...m, editor: { ...m.editor, createWebWorker } } as unknown as Monaco;
}

/**
 * YAML's tokenizer and language configuration, registered at once: `languages/definitions/yaml/register`
 * loads them with a dynamic import when the first model is created, a round trip for a 4 KB chunk
 * after Monaco is loaded, before the text is coloured.
 */
function registerYaml(m: Monaco): void {
  const { conf, language } = yamlLanguage as { conf: monaco.languages.LanguageConfiguration; language: monaco.languages.IMonarchLanguage };
  m.languages.register({ id: "yaml", extensions: [".yaml", ".yml"], aliases: ["YAML", "yaml", "YML", "yml"], mimetypes: ["application/x-yaml", "text/x-yaml"] });
  m.languages.setMonarchTokensProvider("yaml", language);
  m.languages.setLanguageConfiguration("yaml", conf);
}

export function setupMonaco(): Monaco {
  if (yaml) return monaco;
  registerYaml(monaco);
  window.MonacoEnvironment = {
    getWorker: () => new Worker(new URL("monaco-editor/editor/editor.worker.js", import.meta.url)),
  };
  loader.config({ monaco });
  monaco.editor.onDidCreateModel((model) => {
    // Bracket pair colorization is a model option (the editor's `bracketPairColorization` does not
    // reach it). Off before the first render: once its decorations ask for brackets, the model keeps a
    // bracket tree of the whole document and updates it in every edit, and each rendered line reads it.
    model.updateOptions({ bracketColorizationOptions: { enabled: false, independentColorPoolPerBracketType: false } });
  });
  monaco.editor.defineTheme("modex-dark", {
    base: "vs-dark",
    inherit: true,
    rules: [],
    colors: {
      "editor.background": "#0c0c0f",
      "editorGutter.background": "#0c0c0f",
      "editor.lineHighlightBackground": "#18181b",
      "editorLineNumber.foreground": "#52525b",
      "editorLineNumber.activeForeground": "#a1a1aa",
      // The suggestion list, its details and hovers in the app's dark palette (zinc), not VS Code's grey and blue.
      "editorWidget.background": "#18181b",
      "editorWidget.border": "#3f3f46",
      "editorSuggestWidget.background": "#18181b",
      "editorSuggestWidget.border": "#3f3f46",
      "editorSuggestWidget.selectedBackground": "#3f3f46",
      "editorSuggestWidget.selectedForeground": "#fafafa",
      "editorHoverWidget.background": "#18181b",
      "editorHoverWidget.border": "#3f3f46",
    },
  });
  monaco.editor.defineTheme("modex-light", {
    base: "vs",
    inherit: true,
    rules: [],
    colors: {
      "editor.background": "#ffffff",
      "editorGutter.background": "#ffffff",
      "editor.lineHighlightBackground": "#f4f4f5",
      "editorLineNumber.foreground": "#a1a1aa",
      "editorLineNumber.activeForeground": "#3f3f46",
    },
  });
  yaml = configureMonacoYaml(yamlWorkerAdapter(monaco), {
    enableSchemaRequest: false,
    hover: true,
    completion: true,
    // The server's compiler is the one source of markers (use-server-validation.ts): monaco-yaml's
    // validation repeated each of its problems and added schema noise ("Value must be 'function'" for
    // a misspelt node type, from the schema's list of alternatives).
    validate: false,
    schemas: [],
  });
  return monaco;
}

let schemaAssist = true;

/**
 * Turns monaco-yaml's JSON Schema completion and hover on or off: the graph editor has its own
 * (spec-completion-provider.ts), which knows the spec's node names, state fields and the app's agents;
 * the agent editor keeps the schema's.
 */
export function setSchemaAssist(on: boolean): void {
  if (on === schemaAssist) return;
  schemaAssist = on;
  void yaml?.update({ completion: on, hover: on });
}

/** Installs the spec JSON Schema (from the server) for the editor's model. */
export function setSpecSchema(schema: Record<string, unknown>): void {
  void yaml?.update({
    schemas: [{ uri: "inmemory://modex/graph-spec.schema.json", fileMatch: ["*"], schema: schema as never }],
  });
}
