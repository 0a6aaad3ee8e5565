import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { isPromise, type Awaitable } from "@/server/graph/awaitable";

/** What a boot-time load of a folder did: the names it saved (`created`: new ones), and each file refused, with why. */
export interface LoadReport {
  loaded: string[];
  created: string[];
  failed: { file: string; message: string }[];
}

/** The `*.yml` / `*.yaml` files of `dir`, in name order; none when the folder cannot be read (a missing one declares nothing). */
export function yamlFilesOf(dir: string): string[] {
  try {
    return readdirSync(/*turbopackIgnore: true*/ dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  } catch {
    return [];
  }
}

export function readYamlFile(dir: string, file: string): string {
  return readFileSync(/*turbopackIgnore: true*/ path.join(dir, file), "utf8");
}

/**
 * Boot-time loading of a folder (specs, agents): each YAML file, in name order, through `save`; a bad
 * file is reported, never fatal. Done when it returns while `save` answers synchronously (a synchronous
 * store: tests build their services without awaiting); else the files are saved one after another.
 */
export function loadYamlFolder(dir: string, save: (yaml: string) => Awaitable<{ name: string; created: boolean }>): Awaitable<LoadReport> {
  const out: LoadReport = { loaded: [], created: [], failed: [] };
  const files = yamlFilesOf(dir);
  const loaded = (saved: { name: string; created: boolean }) => {
    out.loaded.push(saved.name);
    if (saved.created) out.created.push(saved.name);
  };
  const failed = (file: string, error: unknown) => void out.failed.push({ file, message: error instanceof Error ? error.message : String(error) });
  const from = (start: number): Awaitable<LoadReport> => {
    for (let i = start; i < files.length; i++) {
      let saving: Awaitable<{ name: string; created: boolean }>;
      try {
        saving = save(readYamlFile(dir, files[i]));
      } catch (error) {
        failed(files[i], error);
        continue;
      }
      if (isPromise(saving)) return saving.then(loaded, (error: unknown) => failed(files[i], error)).then(() => from(i + 1));
      loaded(saving);
    }
    return out;
  };
  return from(0);
}
