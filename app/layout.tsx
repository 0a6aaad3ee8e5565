import type { Metadata } from "next";
import { headers } from "next/headers";
import localFont from "next/font/local";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/providers/trpc-provider";
import { AppHeader } from "@/components/shell/app-header";
import { ShortcutsOverlay } from "@/components/shell/shortcuts-overlay";
import { THEME_SCRIPT } from "@/components/shell/theme-script";
import { nonceOf } from "@/server/api/http/content-security-policy";
import { readHealth } from "@/server/api/routers/health";
import { env } from "@/server/env";
import { signedInAs } from "@/app/signed-in";
import { ViewerSessionProvider } from "@/components/auth/viewer-session";
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
  const auth = await signedInAs();
  const isSignedIn = auth !== null;
  // The nonce proxy.ts put in this request's policy: the theme script runs under the same CSP as Next's own.
  const nonce = nonceOf((await headers()).get("content-security-policy"));
  return (
    // The theme script sets data-theme on <html> before React hydrates it (suppressHydrationWarning: that attribute only).
    <html lang="en" className={inter.variable} suppressHydrationWarning>
      <head>
        {/* Before the first paint: the chosen theme, so a reload never shows a frame of the other one. */}
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-dvh bg-zinc-950 font-sans text-zinc-100">
        <TRPCReactProvider maxBatch={env.MODEX_MAX_BATCH}>
          {/* Only the session's ref (a hash), so answer and approval cards can say "You" in every tab of this login. */}
          <ViewerSessionProvider session={auth?.via === "cookie" ? auth.session : null}>
            {/* The header shows the app's navigation only to a signed-in user. */}
            <AppHeader signedIn={isSignedIn} health={readHealth()} />
            {children}
            {isSignedIn && <ShortcutsOverlay />}
          </ViewerSessionProvider>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
