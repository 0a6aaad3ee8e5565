import { describe, expect, it } from "vitest";
import { THEME_SCRIPT, THEME_STORAGE_KEY } from "./theme-script";

/** Runs the inline script against a stand-in page: its <html> attributes, storage and system preference. */
function page(stored: string | null, systemLight: boolean, storageThrows = false) {
  const attrs: Record<string, string> = {};
  const listeners: Record<string, ((e: { key: string | null }) => void)[]> = {};
  const media = { matches: systemLight, change: [] as (() => void)[] };
  let value = stored;
  const window = {
    matchMedia: () => ({ get matches() { return media.matches; }, addEventListener: (_: string, f: () => void) => media.change.push(f) }),
    addEventListener: (type: string, f: (e: { key: string | null }) => void) => (listeners[type] ??= []).push(f),
  };
  const document = { documentElement: { setAttribute: (k: string, v: string) => (attrs[k] = v) } };
  const localStorage = {
    getItem: (k: string) => {
      if (storageThrows) throw new Error("SecurityError");
      return k === THEME_STORAGE_KEY ? value : null;
    },
  };
  new Function("window", "document", "localStorage", THEME_SCRIPT)(window, document, localStorage);
  return {
    attrs,
    systemSwitch(light: boolean) {
      media.matches = light;
      media.change.forEach((f) => f());
    },
    otherTabStores(v: string | null) {
      value = v;
      listeners.storage?.forEach((f) => f({ key: THEME_STORAGE_KEY }));
    },
  };
}

describe("the theme script", () => {
  it("follows the system without a stored choice (or an unknown one, or no storage at all)", () => {
    expect(page(null, true).attrs).toEqual({ "data-theme-choice": "system", "data-theme": "light" });
    expect(page(null, false).attrs).toEqual({ "data-theme-choice": "system", "data-theme": "dark" });
    expect(page("sepia", true).attrs).toEqual({ "data-theme-choice": "system", "data-theme": "light" });
    expect(page("dark", true, true).attrs).toEqual({ "data-theme-choice": "system", "data-theme": "light" });
  });

  it("applies a stored Light or Dark over the system's preference, and keeps it when the system switches", () => {
    const p = page("dark", true);
    expect(p.attrs).toEqual({ "data-theme-choice": "dark", "data-theme": "dark" });
    p.systemSwitch(false);
    p.systemSwitch(true);
    expect(p.attrs["data-theme"]).toBe("dark");
    expect(page("light", false).attrs["data-theme"]).toBe("light");
  });

  it("follows the system's switch live under System, and a choice stored later (another tab, or this one)", () => {
    const p = page(null, false);
    p.systemSwitch(true);
    expect(p.attrs["data-theme"]).toBe("light");
    p.otherTabStores("dark");
    expect(p.attrs).toEqual({ "data-theme-choice": "dark", "data-theme": "dark" });
    p.otherTabStores(null);
    expect(p.attrs).toEqual({ "data-theme-choice": "system", "data-theme": "light" });
  });
});
