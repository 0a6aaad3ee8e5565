import type { Metadata } from "next";
import { headers } from "next/headers";
import { GraphEditor } from "@/components/graphs/graph-editor";
import { renameSpecYaml } from "@/components/graphs/spec-copy";
import { templateById } from "@/components/graphs/spec-templates";
import { createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";

export const metadata: Metadata = { title: "New graph" };

type Search = Promise<{ name?: string; template?: string; from?: string }>;

/**
 * An unsaved spec under `name`: a template's, or with `from` (*Duplicate…*) a copy of that graph's
 * latest revision renamed (a `from` that is not found starts from the template instead).
 */
export default async function NewGraphPage({ searchParams }: { searchParams: Search }) {
  const { name, template, from } = await searchParams;
  const specName = name && /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name) ? name : "my-graph";
  const source = from ? await createCaller(createTRPCContext({ headers: await headers() })).specs.get({ spec: from }).catch(() => null) : null;
  const yaml = source ? renameSpecYaml(source.yaml, specName) : templateById(template).yaml(specName);
  return <GraphEditor key={`${specName}:${from ?? template}`} name={null} initialYaml={yaml} />;
}
