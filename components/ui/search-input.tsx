/**
 * The one search box of the lists (Graphs filter, Instances search, Chat search): a magnifier, the
 * text, the browser's clear button. Its width is the caller's (`className`, default w-64); its look is
 * the same everywhere.
 */
export function SearchInput({ label, placeholder, value, onChange, className = "w-64" }: { label: string; placeholder: string; value: string; onChange(value: string): void; className?: string }) {
  return (
    <span data-testid="search-input" className={`relative inline-flex ${className}`}>
      <svg aria-hidden="true" viewBox="0 0 16 16" className="pointer-events-none absolute left-2.5 top-1/2 h-3.5 w-3.5 -translate-y-1/2 text-zinc-500">
        <circle cx="7" cy="7" r="4.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <line x1="10.5" y1="10.5" x2="14" y2="14" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
      </svg>
      <input
        type="search"
        aria-label={label}
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="w-full rounded-md border border-white/15 bg-zinc-950 py-1.5 pl-8 pr-2.5 text-xs text-zinc-100 outline-none placeholder:text-zinc-500 focus:border-indigo-400/60"
      />
    </span>
  );
}
