"use client";

import { useEffect, useState } from "react";

/**
 * Whether `flag` has been true for at least `ms`: a state that normally passes in a moment (a stream
 * connecting on page load) is said only once it lasts, so a normal load does not flash a warning.
 */
export function useLasting(flag: boolean, ms: number): boolean {
  const [lasted, setLasted] = useState(false);
  useEffect(() => {
    setLasted(false);
    if (!flag) return;
    const id = setTimeout(() => setLasted(true), ms);
    return () => clearTimeout(id);
  }, [flag, ms]);
  return flag && lasted;
}
