/** The Modex mark: three nodes joined by two edges (fixed colours: the same in the light theme; public/favicon.svg). */
export function ModexLogo({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" fill="none" aria-hidden="true" className={className}>
      <rect width="24" height="24" rx="6" fill="#6366f1" />
      <path d="M8 8.5c4 0 4 3.5 8 3.5M8 15.5c4 0 4-3.5 8-3.5" stroke="#e0e7ff" strokeWidth="1.6" />
      <circle cx="7" cy="8.5" r="2.2" fill="#fff" />
      <circle cx="7" cy="15.5" r="2.2" fill="#fff" />
      <circle cx="17" cy="12" r="2.6" fill="#fff" />
    </svg>
  );
}
