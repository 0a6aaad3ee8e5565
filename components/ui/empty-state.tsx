import type { ReactNode } from "react";

/** Says there is nothing here yet and what to do about it. */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div data-testid="empty-state" className="flex flex-col items-center rounded-xl border border-dashed border-white/15 px-6 py-14 text-center">
      <p className="text-sm font-semibold text-zinc-100">{title}</p>
      {children && <div className="mt-2 max-w-md text-sm leading-6 text-zinc-400">{children}</div>}
      {action && <div className="mt-6">{action}</div>}
    </div>
  );
}
