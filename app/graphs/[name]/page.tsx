import type { Metadata } from "next";
import { GraphEditor } from "@/components/graphs/graph-editor";

type Params = Promise<{ name: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: decodeURIComponent((await params).name) };
}

export default async function GraphEditorPage({ params }: { params: Params }) {
  const { name } = await params;
  return <GraphEditor key={name} name={decodeURIComponent(name)} />;
}
