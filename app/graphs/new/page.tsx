import type { Metadata } from "next";
import { GraphEditor } from "@/components/graphs/graph-editor";
import { templateById } from "@/components/graphs/spec-templates";

export const metadata: Metadata = { title: "New graph" };

type Search = Promise<{ name?: string; template?: string }>;

export default async function NewGraphPage({ searchParams }: { searchParams: Search }) {
  const { name, template } = await searchParams;
  const specName = name && /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name) ? name : "my-graph";
  return <GraphEditor key={`${specName}:${template}`} name={null} initialYaml={templateById(template).yaml(specName)} />;
}
