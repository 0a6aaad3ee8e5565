import type { Metadata } from "next";
import { TriggersPage } from "@/components/triggers/triggers-page";

export const metadata: Metadata = { title: "Triggers" };

export default function TriggersRoute() {
  return <TriggersPage />;
}
