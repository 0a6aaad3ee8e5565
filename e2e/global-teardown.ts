import { rmSync } from "node:fs";

/** Removes the temporary data directory that playwright.config.ts created for this run. */
export default function globalTeardown(): void {
  const dir = process.env.MODEX_E2E_DATA_DIR;
  if (dir && process.env.MODEX_E2E_DATA_DIR_CREATED === "1") rmSync(dir, { recursive: true, force: true });
}
