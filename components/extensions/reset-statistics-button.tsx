"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useModexClient } from "@/components/api/modex-client";
import { Button } from "@/components/ui/button";

/** Zeroes the extensions' statistics (every process's, kept in the database), so what they do next is counted from here. */
export function ResetStatisticsButton() {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const reset = useMutation({
    mutationFn: () => client.extensions.resetStatistics.mutate(),
    onSuccess: (report) => queryClient.setQueryData(["extensions"], report),
  });
  return (
    <div className="flex shrink-0 flex-col items-end gap-1">
      <Button size="sm" onClick={() => reset.mutate()} disabled={reset.isPending} title="Zero the calls, errors, vetoes, time and counters">
        {reset.isPending ? "Resetting…" : "Reset statistics"}
      </Button>
      {reset.isError && <span className="text-xs text-rose-300">{reset.error.message}</span>}
    </div>
  );
}
