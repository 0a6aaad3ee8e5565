import type { Metadata } from "next";
import { InstanceView } from "@/components/instances/instance-view";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: `Instance ${decodeURIComponent((await params).id)}` };
}

export default async function InstancePage({ params }: { params: Params }) {
  const { id } = await params;
  return <InstanceView key={id} instanceId={decodeURIComponent(id)} />;
}
