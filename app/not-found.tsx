import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Page not found" };

export default function NotFound() {
  return (
    <main className="mx-auto flex max-w-6xl flex-col items-start px-6 py-24">
      <p className="text-sm font-medium text-indigo-300">404</p>
      <h1 className="mt-3 text-3xl font-semibold tracking-tight text-white">Page not found</h1>
      <p className="mt-3 max-w-lg text-sm leading-6 text-zinc-400">
        Nothing lives at this address. Check it for a typo, or start again from the home page.
      </p>
      <Link
        href="/"
        className="mt-8 rounded-lg border border-white/15 px-4 py-2 text-sm font-semibold text-zinc-200 transition-colors hover:bg-white/5"
      >
        Go to the home page
      </Link>
    </main>
  );
}
