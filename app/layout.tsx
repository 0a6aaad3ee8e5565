import type { Metadata } from "next";
import localFont from "next/font/local";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/providers/trpc-provider";
import { AppHeader } from "@/components/shell/app-header";
import { readHealth } from "@/server/api/routers/health";
import { env } from "@/server/env";
import { signedIn } from "@/app/signed-in";
import "./globals.css";

// Self-hosted from the npm package: next/font/google would fetch at build time, and builds run offline.
const inter = localFont({
  src: "../node_modules/@fontsource-variable/inter/files/inter-latin-wght-normal.woff2",
  weight: "100 900",
  variable: "--font-inter",
  display: "swap",
});

// Every page is rendered per request: proxy.ts gives each response a Content-Security-Policy nonce that
// Next.js must put on the page's scripts (a prerendered page would carry none), and pages are per user.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Modex", template: "%s · Modex" },
  description: "Build, run and watch agent workflows as durable graphs.",
  // public/favicon.svg (and .ico for browsers that ask for /favicon.ico by themselves).
  icons: { icon: [{ url: "/favicon.svg", type: "image/svg+xml" }, { url: "/favicon.ico", sizes: "32x32" }] },
};


export default async function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" className={inter.variable}>
      <body className="min-h-dvh bg-zinc-950 font-sans text-zinc-100">
        <TRPCReactProvider maxBatch={env.MODEX_MAX_BATCH}>
          {/* The header shows the app's navigation only to a signed-in user. */}
          <AppHeader signedIn={await signedIn()} health={readHealth()} />
          {children}
        </TRPCReactProvider>
      </body>
    </html>
  );
}
