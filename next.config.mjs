/** @type {import("next").NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `next dev` serves its dev resources only to localhost unless told otherwise; without this a page
  // opened at 127.0.0.1 (as the e2e tests do) never hydrates.
  allowedDevOrigins: ["127.0.0.1"],
  // Native module: load it from node_modules at run time instead of bundling it.
  serverExternalPackages: ["better-sqlite3"],
  // `next build` type-checks what the app ships (the files app/ and components/ reach), not every file in
  // the repository: tests and modules not yet wired into the app are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
};

export default nextConfig;
