"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect } from "react";
import { useModexClient } from "@/components/api/modex-client";

/** How often the header counts the runs waiting for a person. */
const COUNT_EVERY_MS = 5_000;

/** A "(3) " at the start of a tab title: the count this badge put there. */
const COUNT_PREFIX = /^\(\d+\) /;

/**
 * The header's count of runs waiting for a person's input or approval (the Instances list's *Waiting
 * for you* tab), linking there; nothing when none waits. The tab's title starts with the count too,
 * so a run that starts waiting shows in a background tab.
 */
export function WaitingBadge() {
  const client = useModexClient();
  const waiting = useQuery({
    queryKey: ["instances", "waiting-count"],
    queryFn: () => client.instances.page.query({ waiting: true, limit: 1 }),
    refetchInterval: COUNT_EVERY_MS,
    select: (page) => page.counts.waiting,
  });
  const count = waiting.data ?? 0;
  useTitleCount(count);
  if (count === 0) return null;
  return (
    <Link
      href="/instances?status=waiting"
      prefetch={false}
      data-testid="waiting-badge"
      title={`${count} ${count === 1 ? "run waits" : "runs wait"} for your input or approval`}
      className="inline-flex items-center gap-1.5 rounded-full border border-amber-400/40 bg-amber-400/10 px-2.5 py-1 text-xs font-medium text-amber-200 hover:bg-amber-400/20"
    >
      <span className="h-1.5 w-1.5 rounded-full bg-amber-300" aria-hidden="true" />
      {count} waiting
    </Link>
  );
}

/** Keeps "(count) " at the start of the tab's title, also after a navigation sets a new title. */
function useTitleCount(count: number): void {
  const pathname = usePathname();
  useEffect(() => {
    const apply = () => {
      const bare = document.title.replace(COUNT_PREFIX, "");
      const next = count > 0 ? `(${count}) ${bare}` : bare;
      if (document.title !== next) document.title = next;
    };
    apply();
    // Next.js writes the page's title after a navigation, possibly after this effect ran.
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => {
      observer.disconnect();
      document.title = document.title.replace(COUNT_PREFIX, "");
    };
  }, [count, pathname]);
}
