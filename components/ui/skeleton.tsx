/** A shimmering placeholder block while data loads. */
export function Skeleton({ className = "" }: { className?: string }) {
  return <div aria-hidden="true" className={`animate-pulse rounded-md bg-white/[0.06] ${className}`} />;
}
