import { installAppServices } from "../app-services-singleton";
import type { TestServices } from "./test-services";

/**
 * Installs `t`'s services as the app's (what route handlers called directly, and RestStandIn, find)
 * and returns the teardown: uninstall them, then dispose `t`. Return it from `beforeAll`: vitest runs
 * it after the suite's `afterAll` hooks, so a server one of those stops never serves without services.
 */
export function installedTestServices(t: TestServices): () => Promise<void> {
  installAppServices(t.services);
  return async () => {
    installAppServices(null);
    await t[Symbol.asyncDispose]();
  };
}
