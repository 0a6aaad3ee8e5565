/**
 * The Version cell of a graph row: how many revisions are saved (each save that changed the YAML is
 * one; the list answers it with the row), with the spec's own `version:` label beside it.
 */
export function SpecRevisions({ count, label }: { count: number; label: string }) {
  return (
    <span data-testid="spec-revisions" data-count={count} title={label ? `The spec's own version label: ${label}` : undefined}>
      <span className="tabular-nums text-zinc-200">{`${count} ${count === 1 ? "revision" : "revisions"}`}</span>
      {label && <span className="ml-2 font-mono text-zinc-500">v{label}</span>}
    </span>
  );
}
