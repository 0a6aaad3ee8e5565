import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { signedIn } from "@/app/signed-in";
import { LoginForm } from "@/components/auth/login-form";
import { ModexLogo } from "@/components/shell/modex-logo";
import { safeNextPath } from "@/server/api/http/safe-next";

export const metadata: Metadata = { title: "Sign in" };

/** `next` is checked here, on the server, by the helper the login link uses: the form only follows it. */
export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next, error } = await searchParams;
  // The start-up login link (GET /api/auth/login?token=…) comes back here with ?error=invalid when its
  // token is not accepted (a token from an earlier start, or one cut short when it was copied).
  const linkError = error === "invalid" ? "The sign-in link’s token was not accepted: it may be from an earlier start of the server, or cut short when copied. Paste the current token below." : null;
  const nextPath = safeNextPath(typeof next === "string" ? next : null, "/graphs");
  // Already signed in (a bookmark, the back button): the form would ask for a token the user has given.
  if (!linkError && (await signedIn())) redirect(nextPath);
  return (
    <main className="mx-auto flex max-w-sm flex-col px-6 py-20">
      <ModexLogo className="h-10 w-10" />
      <h1 className="mt-6 text-2xl font-semibold tracking-tight text-white">Sign in to Modex</h1>
      <p className="mt-2 text-sm leading-6 text-zinc-400">
        This Modex server is protected by an access token: <code className="font-mono text-zinc-300">MODEX_TOKEN</code> if it was started with one, otherwise the token in <code className="font-mono text-zinc-300">access-token</code> in its data directory (printed at first start).
      </p>
      <LoginForm next={nextPath} initialError={linkError} />
    </main>
  );
}
