import Link from "next/link";
import type { Health } from "@/server/api/routers/health";
import { EngineStatus } from "@/components/shell/engine-status";
import { CommandPalette } from "@/components/shell/command-palette";
import { ModexLogo } from "@/components/shell/modex-logo";
import { NavLink } from "@/components/shell/nav-link";
import { SignOutButton } from "@/components/shell/sign-out-button";
import { ThemeMenu } from "@/components/shell/theme-menu";
import { WaitingBadge } from "@/components/shell/waiting-badge";

/**
 * The top bar. Signed out (the login page), it shows the name and the theme only: the navigation and
 * the engine status would lead to, or ask, what needs a session. `health`: the server's, as it rendered the page.
 */
export function AppHeader({ signedIn, health }: { signedIn: boolean; health: Health }) {
  return (
    <header className="sticky top-0 z-20 border-b border-white/10 bg-zinc-950/80 backdrop-blur">
      {/* Eight links, the waiting count, the search, the theme, the engine status and Sign out on one line down to 1024 px: tighter spacing below 1280 px. */}
      <div className="mx-auto flex h-14 max-w-6xl items-center gap-3 px-6 xl:gap-6">
        <Link href={signedIn ? "/" : "/login"} className="flex shrink-0 items-center gap-2 text-[15px] font-semibold tracking-tight text-white">
          <ModexLogo className="h-6 w-6" />
          Modex
        </Link>
        {signedIn && (
          <>
            <nav aria-label="Main" className="flex items-center xl:gap-1">
              <NavLink href="/graphs">Graphs</NavLink>
              <NavLink href="/instances">Instances</NavLink>
              <NavLink href="/agents">Agents</NavLink>
              <NavLink href="/extensions">Extensions</NavLink>
              <NavLink href="/chat">Chat</NavLink>
              <NavLink href="/traces">Traces</NavLink>
              <NavLink href="/triggers">Triggers</NavLink>
              <NavLink href="/cluster">Cluster</NavLink>
            </nav>
            <div className="ml-auto flex shrink-0 items-center gap-2 whitespace-nowrap xl:gap-3">
              <WaitingBadge />
              <CommandPalette />
              <ThemeMenu />
              <EngineStatus rendered={health} />
              <SignOutButton />
            </div>
          </>
        )}
        {!signedIn && (
          <div className="ml-auto">
            <ThemeMenu />
          </div>
        )}
      </div>
    </header>
  );
}
