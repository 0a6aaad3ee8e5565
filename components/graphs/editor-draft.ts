/**
 * Unsaved editor text kept in this browser (localStorage), so a reload, a closed tab or a navigation
 * loses nothing: the editor offers it back when the graph is opened again. One draft per graph name
 * (`spec:<name>`) or per unsaved new graph (`new:<name>`); it is removed once the text is saved or
 * matches what is saved. Storage that is full or off (private mode) only means no draft is kept.
 */
export interface EditorDraft {
  text: string;
  /** When it was last written (ms since the epoch). */
  savedAt: number;
  /** The revision it was edited from, when there was one. */
  baseSpecId: string | null;
}

const PREFIX = "modex:draft:";

export function draftKey(savedName: string | null, newName: string | null): string {
  return savedName !== null ? `spec:${savedName}` : `new:${newName ?? "untitled"}`;
}

export function readDraft(key: string): EditorDraft | null {
  try {
    const raw = window.localStorage.getItem(PREFIX + key);
    if (!raw) return null;
    const d = JSON.parse(raw) as Partial<EditorDraft>;
    return typeof d.text === "string" && typeof d.savedAt === "number" ? { text: d.text, savedAt: d.savedAt, baseSpecId: d.baseSpecId ?? null } : null;
  } catch {
    return null;
  }
}

export function writeDraft(key: string, draft: EditorDraft): void {
  try {
    window.localStorage.setItem(PREFIX + key, JSON.stringify(draft));
  } catch {
    // Full or disabled storage: the leave guard still asks before the text can be lost.
  }
}

export function clearDraft(key: string): void {
  try {
    window.localStorage.removeItem(PREFIX + key);
  } catch {
    // As above.
  }
}
