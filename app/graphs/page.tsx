import type { Metadata } from "next";
import { SpecList } from "@/components/graphs/spec-list";

export const metadata: Metadata = { title: "Graphs" };

export default function GraphsPage() {
  return <SpecList />;
}
