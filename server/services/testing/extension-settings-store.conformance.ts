import { expect, it } from "vitest";
import type { ExtensionSettingsStore } from "../extensions/extension-settings-store";

/**
 * The ExtensionSettingsStore contract, run on the in-memory, SQLite and PostgreSQL stores. `reopened`
 * (durable stores): a store on a new connection to the same data, as after a restart.
 */
export function extensionSettingsStoreConformance(backend: { fresh: () => Promise<ExtensionSettingsStore>; reopened?: () => Promise<ExtensionSettingsStore> }): void {
  it("answers nothing until a toggle; the last toggle of a name wins", async () => {
    const store = await backend.fresh();
    expect(await store.all()).toEqual(new Map());
    await store.setEnabled("logging", false);
    await store.setEnabled("secret_masking", true);
    await store.setEnabled("logging", true);
    await store.setEnabled("logging", false);
    expect(await store.all()).toEqual(new Map([["logging", false], ["secret_masking", true]]));
  });

  it("hands out a copy: changing the answer changes nothing stored", async () => {
    const store = await backend.fresh();
    await store.setEnabled("logging", true);
    (await store.all()).set("logging", false);
    expect((await store.all()).get("logging")).toBe(true);
  });

  if (backend.reopened) {
    const reopened = backend.reopened;
    it("a toggle is committed when it has answered: a new connection reads it", async () => {
      const store = await backend.fresh();
      await store.setEnabled("token_budget", false);
      expect(await (await reopened()).all()).toEqual(new Map([["token_budget", false]]));
    });
  }
}
