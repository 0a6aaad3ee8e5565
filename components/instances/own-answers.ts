"use client";

import { useSyncExternalStore } from "react";

/**
 * The answers and decisions this browser tab sent, so their card can say "You" instead of the third
 * person. The server records only how an answer came (`session`, `token`), not whose session: kept per
 * tab (sessionStorage, so a reload still knows), another tab or browser reads the server's words.
 */
const STORE = "modex.own-answers";
const KEEP = 200;
const listeners = new Set<() => void>();

/** The key of a human-input answer: the node and the version it resumed. */
export const answerKey = (instanceId: string, node: string, version: number) => `answer:${instanceId}:${node}:${version}`;
/** The key of an agent approval decision: its transaction. */
export const decisionKey = (instanceId: string, transactionId: string) => `decision:${instanceId}:${transactionId}`;

function read(): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(STORE) ?? "[]");
    return Array.isArray(value) ? value.filter((k): k is string => typeof k === "string") : [];
  } catch {
    return [];
  }
}

function write(keys: string[]): void {
  try {
    sessionStorage.setItem(STORE, JSON.stringify(keys.slice(-KEEP)));
  } catch {
    // Storage refused (private mode, quota): the card says what the server says, as before.
  }
  for (const l of listeners) l();
}

/** Called as the answer is sent (so a card updated by the stream before the reply already says "You"). */
export function rememberOwnAnswer(key: string): void {
  write([...read().filter((k) => k !== key), key]);
}

/** The answer was refused: it is not this tab's. */
export function forgetOwnAnswer(key: string): void {
  write(read().filter((k) => k !== key));
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True when this tab sent the answer or decision `key` (false on the server's render). */
export function useOwnAnswer(key: string | null): boolean {
  return useSyncExternalStore(subscribe, () => key !== null && read().includes(key), () => false);
}
