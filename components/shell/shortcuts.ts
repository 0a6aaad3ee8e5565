/**
 * The app's keyboard shortcuts, as the shortcuts overlay (`?`) lists them. Each one exists in the code
 * named beside it: keep the two in step.
 */
export interface Shortcut {
  /** Alternatives, each a combination of keys pressed together; "Mod" is ⌘ on macOS and Ctrl elsewhere. */
  keys: readonly (readonly string[])[];
  does: string;
}

export const SHORTCUT_GROUPS: readonly { title: string; shortcuts: readonly Shortcut[] }[] = [
  {
    title: "Anywhere",
    shortcuts: [
      { keys: [["Mod", "K"]], does: "Search pages, graphs, runs, chats and agents" }, // command-palette.tsx
      { keys: [["?"]], does: "Show these shortcuts (outside text fields)" }, // shortcuts-overlay.tsx
      { keys: [["Esc"]], does: "Close a dialog or the search" }, // native <dialog>
    ],
  },
  {
    title: "Search",
    shortcuts: [
      { keys: [["↑"], ["↓"]], does: "Move through the results" }, // command-palette.tsx
      { keys: [["Enter"]], does: "Open the result" },
    ],
  },
  {
    title: "Graph and agent editors",
    shortcuts: [
      { keys: [["Mod", "S"]], does: "Save" }, // use-save-shortcut.ts, yaml-editor.tsx
      { keys: [["←"], ["→"]], does: "Move the divider between the editor and the preview (when focused)" }, // use-editor-split.ts
      { keys: [["Mod", "Enter"]], does: "Start the run (in the Run dialog's input)" }, // run-dialog.tsx
    ],
  },
  {
    title: "Chat and answer cards",
    shortcuts: [
      { keys: [["Enter"]], does: "Send the message or the answer" }, // chat-composer.tsx, human-input-card.tsx
      { keys: [["Shift", "Enter"]], does: "New line" },
      { keys: [["Esc"]], does: "Cancel renaming a chat" }, // chat-sidebar.tsx
    ],
  },
  {
    title: "Tab rows",
    shortcuts: [
      { keys: [["←"], ["→"]], does: "Previous or next tab" }, // ui/tab-bar.tsx
      { keys: [["Home"], ["End"]], does: "First or last tab" },
    ],
  },
];

/** The event the command palette sends to open the overlay. */
export const SHOW_SHORTCUTS_EVENT = "modex:show-shortcuts";

/** Whether a `?` typed at `target` is text (a field, an editor) rather than the shortcut. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  return target.closest("input, textarea, select, [contenteditable]:not([contenteditable='false']), .monaco-editor") !== null;
}
