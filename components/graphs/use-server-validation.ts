"use client";

import { useEffect, useMemo, useState } from "react";
import type { SpecIssue } from "@/components/api/contract";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { editorIssues } from "@/components/graphs/editor-issues";
import type { EditorMarker } from "@/components/graphs/yaml-editor";

export type ServerValidation =
  | { state: "idle" | "checking" }
  | { state: "valid" }
  | { state: "invalid"; issues: SpecIssue[] }
  | { state: "unavailable"; message: string };

/**
 * Asks the server to compile the text once typing pauses; its issues (one per problem: editor-issues.ts)
 * become editor markers. They are the editor's only markers: monaco-yaml's own validation is off
 * (monaco-setup.ts), since it repeated each problem and, for a misspelt node type, added a misleading one.
 */
export function useServerValidation(text: string, delayMs = 500): { validation: ServerValidation; markers: EditorMarker[] } {
  const client = useModexClient();
  const [validation, setValidation] = useState<ServerValidation>({ state: "idle" });

  useEffect(() => {
    // Made when the request starts: most edits are replaced by the next keystroke before then.
    let controller: AbortController | null = null;
    const timer = setTimeout(() => {
      controller = new AbortController();
      const { signal } = controller;
      setValidation({ state: "checking" });
      client.specs.validate
        .mutate({ yaml: text }, { signal })
        .then((r) => {
          if (!signal.aborted) setValidation(r.ok ? { state: "valid" } : { state: "invalid", issues: editorIssues(r.issues, text) });
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

export function issueText(issue: SpecIssue): string {
  return issue.pathText ? `${issue.pathText}: ${issue.message}` : issue.message;
}
