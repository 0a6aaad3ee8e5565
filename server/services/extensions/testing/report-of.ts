import { isPromise } from "@/server/graph/awaitable";
import type { AppExtensions, ExtensionsReport } from "../app-extensions";

/** The report of extensions without an asynchronous store (memory, SQLite), which answer at once. */
export function reportOf(extensions: AppExtensions): ExtensionsReport {
  const report = extensions.report();
  if (isPromise(report)) throw new Error("reportOf: these extensions' store answers asynchronously; await report()");
  return report;
}
