/**
 * Restore as the graph History and an agent's revision view offer it: the older text saved as the newest
 * revision (the history keeps every one, so nothing is lost), refused while the editor holds unsaved
 * changes, which restoring would replace. `noun` is what the page calls a revision ("version", "revision").
 */
export function RestoreButton({ noun, blocked, disabled, onClick }: { noun: string; blocked?: string; disabled?: boolean; onClick(): void }) {
  return (
    <button
      type="button"
      data-testid="restore-version"
      disabled={!!blocked || disabled}
      title={blocked ?? `Save this ${noun}'s YAML as the newest ${noun} (the history keeps every ${noun})`}
      onClick={onClick}
      className="rounded-md border border-white/15 px-2 py-1 text-xs font-semibold text-zinc-200 hover:bg-white/5 disabled:cursor-not-allowed disabled:opacity-40"
    >
      Restore this {noun}
    </button>
  );
}

/** Why Restore cannot be used now, and why the last one failed, under the button's row. */
export function RestoreNotes({ blocked, error }: { blocked?: string; error?: string | null }) {
  return (
    <>
      {error && <p role="alert" className="mb-3 text-xs text-rose-300">Not restored: {error}</p>}
      {blocked && <p className="mb-3 text-xs text-amber-300/90">{blocked}</p>}
    </>
  );
}

/** What the graph editor and the agent editor say while their text differs from the saved one. */
export const RESTORE_NEEDS_SAVED_TEXT = "Save or undo your changes first: restoring replaces the editor's text";
