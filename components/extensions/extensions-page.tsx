"use client";

import { useQuery } from "@tanstack/react-query";
import { useModexClient } from "@/components/api/modex-client";
import { ExtensionRow } from "@/components/extensions/extension-row";
import { PointGroupsOverview } from "@/components/extensions/point-groups-overview";
import { ResetStatisticsButton } from "@/components/extensions/reset-statistics-button";
import { TrySecretMasking, type MaskingState } from "@/components/extensions/try-secret-masking";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { Skeleton } from "@/components/ui/skeleton";
import { TableFrame, TableHead, Th } from "@/components/ui/data-table";

/**
 * The app's extensions: each with its points (by group), priority, on/off switch and statistics; modules
 * that failed to load; a form to try secret_masking; all 25 points by group with who listens at each.
 */
export function ExtensionsPage() {
  const client = useModexClient();
  const report = useQuery({ queryKey: ["extensions"], queryFn: () => client.extensions.list.query(), refetchInterval: 3_000 });
  // Where this server reads them (MODEX_EXTENSIONS_DIR), not the default folder it may not use.
  const dir = report.data?.dir ? <code className="break-all text-zinc-300">{report.data.dir}</code> : "the extensions folder (MODEX_EXTENSIONS_DIR)";

  return (
    <main data-testid="extensions-page" className="mx-auto max-w-6xl px-6 py-10">
      <div className="flex items-start justify-between gap-4">
        <h1 className="text-2xl font-semibold tracking-tight text-white">Extensions</h1>
        {report.data && report.data.extensions.length > 0 && <ResetStatisticsButton />}
      </div>
      <p data-testid="extensions-intro" className="mt-1 text-sm text-zinc-400">
        They run in every agent, in the chat and in graph nodes. Add one in {dir} (built-ins in extensions.yml, modules as{" "}
        <code className="text-zinc-300">*.mjs</code>) and restart.
      </p>
      {report.isPending ? (
        <div className="mt-6 space-y-2" aria-label="Loading extensions">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-14" />
          ))}
        </div>
      ) : report.isError ? (
        <div className="mt-6">
          <ErrorState title="Could not load the extensions" error={report.error} onRetry={() => void report.refetch()} />
        </div>
      ) : (
        <>
          {report.data.failed.length > 0 && (
            <ul data-testid="extension-failures" className="mt-6 space-y-1 rounded-xl border border-rose-400/30 bg-rose-500/10 p-4 text-sm text-rose-100">
              {report.data.failed.map((f) => (
                <li key={f.file}>
                  Not loaded: <code>{f.file}</code>: {f.message}
                </li>
              ))}
            </ul>
          )}
          {report.data.extensions.length === 0 ? (
            <div className="mt-6">
              <EmptyState title="No extensions">Add a module to {dir}, or a built-in to its extensions.yml.</EmptyState>
            </div>
          ) : (
            <div className="mt-6">
              <TableFrame>
                <TableHead>
                  <Th>Extension</Th>
                  <Th>Points</Th>
                  <Th right>Priority</Th>
                  <Th right>Calls</Th>
                  <Th right>Errors</Th>
                  <Th right>Vetoes</Th>
                  <Th right>Time</Th>
                  <Th>Enabled</Th>
                </TableHead>
                <tbody className="divide-y divide-white/5">
                  {report.data.extensions.map((e) => (
                    <ExtensionRow key={e.name} extension={e} />
                  ))}
                </tbody>
              </TableFrame>
            </div>
          )}
          <TrySecretMasking state={maskingState(report.data.extensions)} />
          <PointGroupsOverview groups={report.data.pointGroups} />
        </>
      )}
    </main>
  );
}

/** Whether the page can offer to try secret_masking (it must be configured in extensions.yml, and on). */
function maskingState(extensions: readonly { name: string; enabled: boolean }[]): MaskingState {
  const masking = extensions.find((e) => e.name === "secret_masking");
  return masking ? (masking.enabled ? "on" : "off") : "absent";
}
