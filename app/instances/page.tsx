import type { Metadata } from "next";
import { Suspense } from "react";
import { InstanceList } from "@/components/instances/instance-list";

export const metadata: Metadata = { title: "Instances" };

export default function InstancesPage() {
  return (
    <Suspense>
      <InstanceList />
    </Suspense>
  );
}
