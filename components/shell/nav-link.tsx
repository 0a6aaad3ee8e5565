"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

/**
 * A top-nav link, highlighted while the current page is at or below its href. Not prefetched: every
 * page is rendered per request, so a prefetch is a server render of each of the four pages on every
 * page load, competing with the page being opened (on two cores, it held the graph editor up by ~1 s).
 */
export function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const pathname = usePathname();
  const active = pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      prefetch={false}
      aria-current={active ? "page" : undefined}
      className={`whitespace-nowrap rounded-md px-2 py-1.5 text-sm xl:px-3 font-medium transition-colors ${
        active ? "bg-white/10 text-white" : "text-zinc-400 hover:bg-white/5 hover:text-zinc-100"
      }`}
    >
      {children}
    </Link>
  );
}
