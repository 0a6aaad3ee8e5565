import Link from "next/link";

/** A link to one of the app's main areas, marked "Coming soon" until its page exists. */
export function DestinationCard(props: { href: string; title: string; description: string; comingSoon?: boolean }) {
  return (
    <Link
      href={props.href}
      className="group flex flex-col rounded-2xl border border-white/10 bg-white/[0.02] p-6 transition-colors hover:border-indigo-400/40 hover:bg-white/[0.04]"
    >
      <div className="flex items-center gap-3">
        <h3 className="text-base font-semibold text-white">{props.title}</h3>
        {props.comingSoon && (
          <span className="rounded-full border border-white/10 px-2 py-0.5 text-[11px] font-medium text-zinc-400">
            Coming soon
          </span>
        )}
        <span
          className="ml-auto text-zinc-500 transition-transform group-hover:translate-x-0.5 group-hover:text-indigo-300"
          aria-hidden="true"
        >
          →
        </span>
      </div>
      <p className="mt-2 text-sm leading-6 text-zinc-400">{props.description}</p>
    </Link>
  );
}
