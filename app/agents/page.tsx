import type { Metadata } from "next";
import { Suspense } from "react";
import { AgentsPage } from "@/components/agents/agents-page";

export const metadata: Metadata = { title: "Agents" };

export default function AgentsRoute() {
  return (
    <Suspense>
      <AgentsPage />
    </Suspense>
  );
}
