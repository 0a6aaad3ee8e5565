"use client";

import { useSyncExternalStore } from "react";
import { THEME_STORAGE_KEY } from "@/components/shell/theme-script";

/**
 * The app's light/dark theme. The person chooses System (the default: the operating system's
 * preference), Light or Dark; the choice is kept in this browser (localStorage). The root layout's
 * inline script (theme-script.ts) resolves it onto <html> before the first paint:
 *
 * - `data-theme`: "light" or "dark", what globals.css draws;
 * - `data-theme-choice`: "system", "light" or "dark", what the header's menu shows.
 *
 * The script also keeps System following the operating system's switch and other tabs' choices, so it
 * is the one place the theme is resolved: setThemeChoice stores the choice and tells the script.
 */
export type ThemeChoice = "system" | "light" | "dark";
export type Theme = "light" | "dark";

export const THEME_CHOICES: readonly ThemeChoice[] = ["system", "light", "dark"];

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage refused (a private window's quota): the choice still applies to this page.
  }
  // The script listens for other tabs' writes; this tab's own write fires no event, so it gets one.
  window.dispatchEvent(new StorageEvent("storage", { key: THEME_STORAGE_KEY, newValue: choice === "system" ? null : choice }));
  // Without storage the script reads no choice: set what was chosen on the page itself.
  if (readChoice() !== choice) {
    document.documentElement.setAttribute("data-theme-choice", choice);
    if (choice !== "system") document.documentElement.setAttribute("data-theme", choice);
  }
}

function readChoice(): ThemeChoice {
  const c = document.documentElement.getAttribute("data-theme-choice");
  return c === "light" || c === "dark" ? c : "system";
}

function readTheme(): Theme {
  return document.documentElement.getAttribute("data-theme") === "light" ? "light" : "dark";
}

function subscribe(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme", "data-theme-choice"] });
  return () => observer.disconnect();
}

/** The theme drawn now ("dark" while the server renders: the first client render corrects it). */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, readTheme, () => "dark");
}

/** The person's choice ("system" while the server renders). */
export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(subscribe, readChoice, () => "system");
}
