"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useModexClient } from "@/components/api/modex-client";
import { ExtensionPointsDisclosure } from "@/components/extensions/extension-points-disclosure";
import type { RouterOutputs } from "@/server/api/root";

type ExtensionView = RouterOutputs["extensions"]["list"]["extensions"][number];

/** One extension: what it is, where it came from, what it did, and its on/off switch (saved on the server). */
export function ExtensionRow({ extension: e }: { extension: ExtensionView }) {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => client.extensions.setEnabled.mutate({ name: e.name, enabled }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ["extensions"] }),
  });
  const counters = Object.entries(e.counters ?? {});
  return (
    <tr data-testid="extension-row" data-name={e.name} className="align-top">
      <td className="px-4 py-3">
        <span className="block font-semibold text-zinc-100">{e.name}</span>
        {/* A module by its file name (the folder is the page's, named above; the whole path in the tooltip): the path broke over two lines at its hyphens. */}
        {e.source.kind === "module" ? (
          <span data-testid="extension-source" className="block whitespace-nowrap font-mono text-[11px] text-zinc-500" title={e.source.file}>
            {e.source.file.split(/[\\/]/).pop()}
          </span>
        ) : (
          <span data-testid="extension-source" className="block text-xs text-zinc-500">built-in</span>
        )}
        {counters.length > 0 && (
          <span data-testid="extension-counters" className="mt-1 block text-xs text-zinc-400">
            {counters.map(([k, v]) => `${k}: ${v}`).join(" · ")}
          </span>
        )}
        {/* Why it failed, not only how often: the latest failure (the server's log has each one). */}
        {e.lastError && (
          <span data-testid="extension-last-error" className="mt-1 block max-w-xs break-words text-xs text-rose-300" title={new Date(e.lastError.at).toLocaleString()}>
            Last error at <span className="font-mono">{e.lastError.point}</span>, {new Date(e.lastError.at).toLocaleTimeString()}: {e.lastError.message}
          </span>
        )}
      </td>
      <td className="px-4 py-3">
        <ExtensionPointsDisclosure name={e.name} groups={e.groups} />
      </td>
      <td className="px-4 py-3 text-right tabular-nums">{e.priority}</td>
      <td data-testid="extension-calls" className="px-4 py-3 text-right tabular-nums">{e.calls}</td>
      <td data-testid="extension-errors" className={`px-4 py-3 text-right tabular-nums${e.failures > 0 ? " text-rose-300" : ""}`}>{e.failures}</td>
      <td className="px-4 py-3 text-right tabular-nums">{e.vetoes}</td>
      <td className="whitespace-nowrap px-4 py-3 text-right tabular-nums">{e.timeMs.toFixed(1)} ms</td>
      <td className="px-4 py-3">
        <label className="inline-flex cursor-pointer items-center gap-2 text-zinc-300">
          <input
            type="checkbox"
            role="switch"
            aria-label={`${e.name} enabled`}
            checked={toggle.isPending ? Boolean(toggle.variables) : e.enabled}
            disabled={toggle.isPending}
            onChange={(ev) => toggle.mutate(ev.target.checked)}
            className="h-4 w-4 accent-sky-400"
          />
          {e.enabled ? "On" : "Off"}
        </label>
        {toggle.isError && <span className="block text-xs text-rose-300">{toggle.error.message}</span>}
      </td>
    </tr>
  );
}
