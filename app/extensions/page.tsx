import type { Metadata } from "next";
import { ExtensionsPage } from "@/components/extensions/extensions-page";

export const metadata: Metadata = { title: "Extensions" };

export default function ExtensionsRoute() {
  return <ExtensionsPage />;
}
