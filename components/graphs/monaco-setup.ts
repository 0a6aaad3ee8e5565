import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor/editor";
import "monaco-editor/features/register.all";
import "monaco-editor/languages/definitions/yaml/register";
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
    return m.editor.createWebWorker({ worker });
  };
  return { ...m, editor: { ...m.editor, createWebWorker } } as unknown as Monaco;
}

export function setupMonaco(): Monaco {
  if (yaml) return monaco;
  window.MonacoEnvironment = {
    getWorker: () => new Worker(new URL("monaco-editor/editor/editor.worker.js", import.meta.url)),
  };
  loader.config({ monaco });
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
    },
  });
  yaml = configureMonacoYaml(yamlWorkerAdapter(monaco), {
    enableSchemaRequest: false,
    hover: true,
    completion: true,
    validate: true,
    schemas: [],
  });
  return monaco;
}

/** Installs the spec JSON Schema (from the server) for the editor's model. */
export function setSpecSchema(schema: Record<string, unknown>): void {
  void yaml?.update({
    schemas: [{ uri: "inmemory://modex/graph-spec.schema.json", fileMatch: ["*"], schema: schema as never }],
  });
}
