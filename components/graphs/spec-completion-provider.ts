import type * as monaco from "monaco-editor/editor";
import { specHover, specSuggestions, type SpecCatalog, type SuggestionKind } from "@/components/graphs/spec-suggestions";

type Monaco = typeof monaco;

/**
 * The graph editor's completion and hover (spec-suggestions.ts) as Monaco providers, for one model only:
 * the agent editor's YAML is another format. `catalog` is read at each request, so node types and agents
 * that arrive after the editor opened are offered from then on.
 */
export function registerSpecAssist(m: Monaco, model: monaco.editor.ITextModel, catalog: () => SpecCatalog): monaco.IDisposable {
  const K = m.languages.CompletionItemKind;
  const kinds: Record<SuggestionKind, monaco.languages.CompletionItemKind> = { key: K.Property, value: K.EnumMember, type: K.Class, node: K.Reference, agent: K.User, state: K.Field, subgraph: K.Module };
  const completion = m.languages.registerCompletionItemProvider("yaml", {
    // After `node_type: ` the list opens by itself.
    triggerCharacters: [" "],
    provideCompletionItems(target, position) {
      if (target !== model) return undefined;
      const found = specSuggestions(target.getValue(), position.lineNumber, position.column, catalog());
      if (!found) return { suggestions: [] };
      const range = new m.Range(position.lineNumber, position.column - found.prefix.length, position.lineNumber, position.column);
      const suggestions = found.items.map((s, i) => ({
        label: { label: s.label, description: s.summary },
        kind: kinds[s.kind],
        detail: s.detail,
        documentation: s.documentation ? { value: s.documentation } : undefined,
        insertText: s.insertText,
        insertTextRules: m.languages.CompletionItemInsertTextRule.InsertAsSnippet,
        range,
        // The format's order (name, node_type, config…), not the alphabet's.
        sortText: String(i).padStart(4, "0"),
        command: s.retrigger ? { id: "editor.action.triggerSuggest", title: "Suggest" } : undefined,
      }));
      return { suggestions };
    },
  });
  const hover = m.languages.registerHoverProvider("yaml", {
    provideHover(target, position) {
      if (target !== model) return undefined;
      const found = specHover(target.getValue(), position.lineNumber, position.column, catalog());
      if (!found) return undefined;
      return { range: new m.Range(position.lineNumber, found.startColumn, position.lineNumber, found.endColumn), contents: [{ value: found.markdown }] };
    },
  });
  return { dispose: () => (completion.dispose(), hover.dispose()) };
}
