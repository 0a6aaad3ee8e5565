import type { Metadata } from "next";
import { ClusterPage } from "@/components/cluster/cluster-page";

export const metadata: Metadata = { title: "Cluster" };

export default function ClusterRoute() {
  return <ClusterPage />;
}
