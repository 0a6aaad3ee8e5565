"use client";

import { useEffect, useState } from "react";

/**
 * A checkbox whose truth lives in the URL. The address changes with `history.replaceState` and Next's
 * router hands the new search params over a render later; a checkbox controlled by them alone snaps back
 * to the old value in between (a flicker, and a click that reads as "did not change"). So it shows the
 * click at once and follows the URL from then on.
 */
export function useUrlFlag(fromUrl: boolean): [shown: boolean, show: (value: boolean) => void] {
  const [shown, setShown] = useState(fromUrl);
  useEffect(() => setShown(fromUrl), [fromUrl]);
  return [shown, setShown];
}
