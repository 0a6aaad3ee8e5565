"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { useModexClient } from "@/components/api/modex-client";
import { copyName } from "@/components/graphs/spec-copy";
import { SPEC_TEMPLATES } from "@/components/graphs/spec-templates";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Picks a name and a template, then opens the editor on the unsaved spec. A name that a saved graph
 * already has is refused here (saving would have made the template that graph's newest version); the
 * editor asks again if `name:` is changed to one later. With `from` (*Duplicate…*), the editor opens a
 * copy of that graph's latest revision under the new name instead of a template.
 */
export function NewGraphDialog({ open, onClose, from }: { open: boolean; onClose: () => void; from?: string }) {
  const router = useRouter();
  const client = useModexClient();
  // Archived graphs' names are taken too (saving under one would make the copy its newest revision).
  const specs = useQuery({ queryKey: ["specs", "list", "include"], queryFn: () => client.specs.list.query({ archived: "include" }), enabled: open });
  const [typed, setTyped] = useState<string | null>(null);
  const [template, setTemplate] = useState(SPEC_TEMPLATES[0].id);
  const names = new Set(specs.data?.map((s) => s.name));
  const name = typed ?? (from ? copyName(from, names) : "my-graph");
  const taken = names.has(name);
  // While the list loads the name cannot be checked; if it cannot load, the editor still asks at save.
  const valid = NAME.test(name) && !taken && !specs.isPending;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!valid) return;
    router.push(`/graphs/new?name=${encodeURIComponent(name)}&${from ? `from=${encodeURIComponent(from)}` : `template=${template}`}`);
  }

  return (
    <Dialog open={open} onClose={onClose} title={from ? `Duplicate ${from}` : "New graph"}>
      <form id="new-graph" onSubmit={submit} className="space-y-5">
        <label className="block">
          <span className="text-sm font-medium text-zinc-200">Name</span>
          <input
            value={name}
            onChange={(e) => setTyped(e.target.value)}
            className="mt-1.5 block w-full rounded-lg border border-white/15 bg-zinc-950 px-3 py-2 font-mono text-sm outline-none focus:border-indigo-400"
          />
          {!NAME.test(name) && <span className="mt-1 block text-xs text-rose-300">Start with a letter or _, then letters, digits, _ . -</span>}
          {taken && (
            <span role="alert" data-testid="name-taken" className="mt-1 block text-xs text-rose-300">
              A graph named “{name}” already exists. Choose another name, or{" "}
              <Link href={`/graphs/${encodeURIComponent(name)}`} className="font-semibold underline">open it</Link>.
            </span>
          )}
        </label>
        {from ? (
          <p className="text-sm text-zinc-400">The copy of {from}&apos;s latest version opens in the editor, unsaved: saving makes it a graph of its own, with its own history and runs.</p>
        ) : (
        <fieldset>
          <legend className="text-sm font-medium text-zinc-200">Template</legend>
          <div className="mt-2 grid gap-2">
            {SPEC_TEMPLATES.map((t) => (
              <label key={t.id} className={`flex cursor-pointer gap-3 rounded-lg border px-3 py-2.5 ${template === t.id ? "border-indigo-400/60 bg-indigo-400/5" : "border-white/10 hover:border-white/20"}`}>
                <input type="radio" name="template" value={t.id} checked={template === t.id} onChange={() => setTemplate(t.id)} className="mt-1 accent-indigo-500" />
                <span>
                  <span className="block text-sm font-semibold text-zinc-100">{t.title}</span>
                  <span className="block text-xs text-zinc-400">{t.description}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        )}
      </form>
      <div className="mt-6 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" form="new-graph" variant="primary" disabled={!valid}>
          {from ? "Open the copy" : "Open in editor"}
        </Button>
      </div>
    </Dialog>
  );
}
