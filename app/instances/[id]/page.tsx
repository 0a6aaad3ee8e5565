import type { Metadata } from "next";
import { headers } from "next/headers";
import type { InstanceDetail, TimelineSummaryDto } from "@/components/api/contract";
import { instanceTopology } from "@/shared/canvas/instance-topology";
import { InstanceView } from "@/components/instances/instance-view";
import { createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { serverLayout } from "@/server/api/instance-layout";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: `Instance ${decodeURIComponent((await params).id)}` };
}

/**
 * The instance and its timeline summary are fetched while rendering (through a tRPC caller with the
 * request's credentials), so the view paints from the HTML instead of after a round trip that could
 * only start once the page's scripts ran; so is ELK's layout of its graph (`instance-layout.ts`). Any
 * failure (no session, unknown id) leaves it to the client, which fetches and shows the error as before.
 */
export default async function InstancePage({ params }: { params: Params }) {
  const { id } = await params;
  const instanceId = decodeURIComponent(id);
  const caller = createCaller(createTRPCContext({ headers: await headers() }));
  const [detail, timeline] = await Promise.all([
    caller.instances.get({ instanceId, node: null }).catch(() => undefined),
    caller.instances.timeline({ instanceId }).catch(() => undefined),
  ]);
  // What the caller returns is what the HTTP API serializes (the client's types are the JSON form).
  const shown = detail as InstanceDetail | undefined;
  const layout = shown && shown.topology.nodes.length > 0 ? await serverLayout(instanceTopology(shown.topology)).catch(() => null) : null;
  const initial = { detail: shown, timeline: timeline as TimelineSummaryDto | undefined, layout };
  return <InstanceView key={id} instanceId={instanceId} initial={initial} />;
}
