"use client";

import { useEffect } from "react";

const COUNT_PREFIX = /^\(\d+\) /;
const bareTitle = () => document.title.replace(COUNT_PREFIX, "");

/** Sets the tab's title, keeping the "(N) " the waiting badge puts in front (components/shell/waiting-badge.tsx). */
function setTitle(bare: string): void {
  document.title = `${document.title.match(COUNT_PREFIX)?.[0] ?? ""}${bare}`;
}

/**
 * Names the tab after what the page shows once the client knows it (a chat's title, a run's graph), as
 * "<title> · Modex" like the server's metadata titles. `null` leaves the server's title.
 *
 * Next.js may write the route's metadata title after this effect ran (it streams it), so the title is
 * kept while the page shows, as the waiting badge keeps its count. When the page shows something else,
 * the title before is put back unless someone else has changed it since: a change of query string
 * (another chat, the traces list) keeps the route, so Next.js does not write its title again.
 */
export function useDocumentTitle(title: string | null): void {
  useEffect(() => {
    if (title === null) return;
    const wanted = `${title} · Modex`;
    let before = bareTitle();
    const apply = () => {
      const bare = bareTitle();
      if (bare === wanted) return;
      before = bare;
      setTitle(wanted);
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => {
      observer.disconnect();
      if (bareTitle() === wanted) setTitle(before);
    };
  }, [title]);
}
