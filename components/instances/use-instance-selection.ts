"use client";

import { useState } from "react";

export interface InstanceSelection {
  /** The selected runs among the listed ones, in list order (what an action by ids sends). */
  ids: string[];
  /** Every run the list's filter matches is selected, listed or not: an action sends the filter. */
  allMatching: boolean;
  /** Runs an action would act on: the filter's total when all matching are selected. */
  count: number;
  /** How much of the listed rows is selected, for the header's checkbox. */
  listed: "none" | "some" | "all";
  has(id: string): boolean;
  toggle(id: string): void;
  /** Selects every listed row, or none when all of them were. */
  toggleListed(): void;
  selectAllMatching(): void;
  clear(): void;
}

interface Picked {
  key: string;
  ids: ReadonlySet<string>;
  all: boolean;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The Instances list's selection. It belongs to one filter (`filterKey`): another filter starts with
 * nothing selected, so an action never reaches runs the person no longer sees. Only listed rows count,
 * so a run that leaves the list (deleted elsewhere, finished into another tab) leaves the selection.
 */
export function useInstanceSelection({ listed, total, filterKey }: { listed: readonly string[]; total: number; filterKey: string }): InstanceSelection {
  const [state, setState] = useState<Picked>({ key: filterKey, ids: NONE, all: false });
  const picked = state.key === filterKey ? state : { key: filterKey, ids: NONE, all: false };
  const set = (ids: ReadonlySet<string>, all = false) => setState({ key: filterKey, ids, all });

  const ids = picked.all ? [...listed] : listed.filter((id) => picked.ids.has(id));
  const share = ids.length === 0 ? "none" : ids.length === listed.length ? "all" : "some";
  return {
    ids,
    allMatching: picked.all,
    count: picked.all ? total : ids.length,
    listed: share,
    has: (id) => picked.all || picked.ids.has(id),
    toggle: (id) => {
      // Unticking one row of "all matching" leaves the listed rows but that one.
      const next = new Set(picked.all ? listed : ids);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      set(next);
    },
    toggleListed: () => set(share === "all" ? NONE : new Set(listed)),
    selectAllMatching: () => set(NONE, true),
    clear: () => set(NONE),
  };
}
