"use client";

import { useEffect, useMemo, useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { issueText, type ServerValidation } from "@/components/graphs/use-server-validation";
import type { EditorMarker } from "@/components/graphs/yaml-editor";

/** Asks the server to validate the definition once typing pauses; its issues become editor markers (as specs do). */
export function useAgentValidation(text: string, delayMs = 400): { validation: ServerValidation; markers: EditorMarker[] } {
  const client = useModexClient();
  const [validation, setValidation] = useState<ServerValidation>({ state: "idle" });

  useEffect(() => {
    let controller: AbortController | null = null;
    const timer = setTimeout(() => {
      controller = new AbortController();
      const { signal } = controller;
      setValidation({ state: "checking" });
      client.agents.validate
        .mutate({ yaml: text }, { signal })
        .then((r) => {
          if (!signal.aborted) setValidation(r.ok ? { state: "valid" } : { state: "invalid", issues: [...r.issues] });
        })
        .catch((e: unknown) => {
          if (!signal.aborted) setValidation({ state: "unavailable", message: errorMessage(e) });
        });
    }, delayMs);
    return () => {
      clearTimeout(timer);
      controller?.abort();
    };
  }, [client, text, delayMs]);

  const markers = useMemo<EditorMarker[]>(
    () =>
      validation.state === "invalid"
        ? validation.issues.map((i) => ({ message: issueText(i), line: i.line ?? 1, column: i.column ?? 1, severity: "error" as const }))
        : [],
    [validation],
  );
  return { validation, markers };
}
