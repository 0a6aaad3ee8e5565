import type { ReactNode } from "react";

/** One of the two layers Modex is made of, as a card on the home page. */
export function PillarCard(props: { eyebrow: string; title: string; children: ReactNode; points: string[] }) {
  return (
    <article className="rounded-2xl border border-white/10 bg-white/[0.02] p-6">
      <p className="text-xs font-semibold uppercase tracking-wider text-indigo-300">{props.eyebrow}</p>
      <h3 className="mt-2 text-lg font-semibold text-white">{props.title}</h3>
      <p className="mt-2 text-sm leading-6 text-zinc-400">{props.children}</p>
      <ul className="mt-5 space-y-2.5 text-sm text-zinc-300">
        {props.points.map((point) => (
          <li key={point} className="flex gap-3">
            <span className="mt-2 h-1 w-1 shrink-0 rounded-full bg-indigo-400" aria-hidden="true" />
            {point}
          </li>
        ))}
      </ul>
    </article>
  );
}
