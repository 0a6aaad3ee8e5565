import { useCallback, useRef, useState } from "react";
import type { PlainSelection } from "@/components/graphs/plain-yaml-editor";
import type { YamlEditorApi } from "@/components/graphs/yaml-editor";
import { afterNextFrame } from "@/components/ui/after-paint";

/**
 * The hand-over from the plain text area a YAML editor page arrives with to Monaco, once it has loaded:
 * Monaco takes what was typed there, with the cursor where it was, and the plain text stays until Monaco
 * has drawn its lines (it draws in an animation frame), so no frame shows an empty editor.
 * `current`: the text as the page holds it now.
 */
export function useMonacoHandover(current: string) {
  const editorApi = useRef<YamlEditorApi | null>(null);
  const [editorReady, setEditorReady] = useState(false);
  const plainSelection = useRef<PlainSelection | null>(null);
  const textRef = useRef(current);
  textRef.current = current;
  const onEditorReady = useCallback((api: YamlEditorApi) => {
    editorApi.current = api;
    if (api.getValue() !== textRef.current) api.setValue(textRef.current);
    const at = plainSelection.current;
    if (at) api.revealPosition(at.line, at.column);
    afterNextFrame(() => setEditorReady(true));
  }, []);
  return { editorApi, editorReady, plainSelection, onEditorReady };
}
