import type { Metadata } from "next";
import { headers } from "next/headers";
import type { SpecDetail } from "@/components/api/contract";
import { GraphEditor, type InitialSpec } from "@/components/graphs/graph-editor";
import { yamlToTopology } from "@/components/graphs/yaml-topology";
import { inRows } from "@/shared/canvas/topology";
import { serverLayout } from "@/server/api/instance-layout";
import { createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";

type Params = Promise<{ name: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: decodeURIComponent((await params).name) };
}

/**
 * The spec is read while the page renders (a tRPC caller with the request's credentials), so the
 * editor starts with its text in the HTML instead of after a round trip that could only begin once
 * the scripts ran, and an unknown name says so at once. Any other failure is left to the browser.
 * Until Monaco is loaded, the text shows (editable) in a plain text area (plain-yaml-editor.tsx).
 */
export default async function GraphEditorPage({ params }: { params: Params }) {
  const { name } = await params;
  const specName = decodeURIComponent(name);
  const caller = createCaller(createTRPCContext({ headers: await headers() }));
  const initial: InitialSpec | undefined = await caller.specs.get({ spec: specName }).then(
    // What the caller returns is what the HTTP API serializes (the client's types are the JSON form).
    (spec) => ({ spec: spec as SpecDetail }),
    (e: unknown) => ((e as { code?: string }).code === "NOT_FOUND" ? { notFound: (e as Error).message } : undefined),
  );
  // ELK's layout of its graph too (cached per layout key, given up after 100 ms): the preview then
  // neither waits for ELK nor loads it while Monaco loads.
  const read = initial && "spec" in initial ? yamlToTopology(initial.spec.yaml) : null;
  const layout = read?.ok ? await serverLayout(inRows(read.topology)).catch(() => null) : null;
  return <GraphEditor key={name} name={specName} initial={initial} initialLayout={layout} />;
}
