/**
 * A spec's YAML under another name: its top-level `name:` line replaced (the first one at column 0;
 * a nested `name:` is a node's), or one added at the top when it has none. The rest, comments and
 * layout included, stays as written. For *Duplicate…* (the editor opens the copy unsaved).
 */
export function renameSpecYaml(yaml: string, name: string): string {
  const line = /^name[ \t]*:.*$/m;
  return line.test(yaml) ? yaml.replace(line, `name: ${name}`) : `name: ${name}\n${yaml}`;
}

/** `<name>-copy`, else `<name>-copy-2`, `-copy-3`…: the first that no graph has. */
export function copyName(name: string, taken: ReadonlySet<string>): string {
  const base = `${name}-copy`;
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** The editor's text as a file named for the spec: what *Download* saves. */
export function downloadYaml(name: string, yaml: string): void {
  const url = URL.createObjectURL(new Blob([yaml], { type: "application/yaml" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `${name}.yml`;
  link.click();
  URL.revokeObjectURL(url);
}
