"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { clearDraft, type EditorDraft, readDraft, writeDraft } from "@/components/graphs/editor-draft";

/** How long typing rests before the draft is written (a write per keystroke is wasted on a 200-node spec). */
const WRITE_AFTER_MS = 300;

export interface DraftState {
  /** A draft from an earlier visit that differs from what the editor opened with, until restored or discarded. */
  offered: EditorDraft | null;
  /** Takes the offered draft (the caller puts its text in the editor). */
  take(): EditorDraft | null;
  discard(): void;
}

/**
 * Keeps the editor's unsaved text as a local draft under `key`, and offers back the one an earlier
 * visit left. `seed` is what the editor opened with (null until it is known), `unchanged` whether
 * the current text needs no draft (it is what is saved, or the untouched template). While an offer is
 * undecided nothing is written, so the offered draft cannot be overwritten before the person chose.
 */
export function useEditorDraft(opts: { key: string; seed: string | null; text: string; unchanged: boolean; baseSpecId: string | null }): DraftState {
  const { key, seed, text, unchanged, baseSpecId } = opts;
  const [offered, setOffered] = useState<EditorDraft | null>(null);
  const checked = useRef(false);

  useEffect(() => {
    if (seed === null || checked.current) return;
    checked.current = true;
    const draft = readDraft(key);
    if (draft && draft.text !== seed) setOffered(draft);
    else if (draft) clearDraft(key);
  }, [key, seed]);

  useEffect(() => {
    if (seed === null || offered) return;
    const timer = setTimeout(() => {
      if (unchanged) clearDraft(key);
      else writeDraft(key, { text, savedAt: Date.now(), baseSpecId });
    }, WRITE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [key, seed, text, unchanged, baseSpecId, offered]);

  // The debounced write above is dropped when the page goes before it fires (a link, a reload, a closed
  // tab right after a keystroke): write once more when the editor unmounts and when the page is hidden.
  const latest = useRef({ key, seed, text, unchanged, baseSpecId, offered });
  latest.current = { key, seed, text, unchanged, baseSpecId, offered };
  useEffect(() => {
    const flush = () => {
      const l = latest.current;
      if (l.seed === null || l.offered) return;
      if (l.unchanged) clearDraft(l.key);
      else writeDraft(l.key, { text: l.text, savedAt: Date.now(), baseSpecId: l.baseSpecId });
    };
    window.addEventListener("pagehide", flush);
    return () => {
      window.removeEventListener("pagehide", flush);
      flush();
    };
  }, []);

  const take = useCallback(() => {
    const d = offered;
    setOffered(null);
    return d;
  }, [offered]);
  const discard = useCallback(() => {
    clearDraft(key);
    setOffered(null);
  }, [key]);
  return { offered, take, discard };
}
