/**
 * The inline script the root layout puts in <head> (with the page's CSP nonce): it sets <html>'s
 * data-theme from the choice stored in this browser before anything paints, so a reload never flashes
 * the other theme (theme.ts describes the attributes). Not a client module: the layout, a server
 * component, reads the text.
 */
export const THEME_STORAGE_KEY = "modex-theme";

/** Runs in <head> before the page paints (keep it small, plain ES5 and free of outside names). */
export const THEME_SCRIPT = `(function () {
  var root = document.documentElement;
  var query = window.matchMedia("(prefers-color-scheme: light)");
  function apply() {
    var choice = null;
    try { choice = localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)}); } catch (e) {}
    if (choice !== "light" && choice !== "dark") choice = "system";
    root.setAttribute("data-theme-choice", choice);
    root.setAttribute("data-theme", choice === "system" ? (query.matches ? "light" : "dark") : choice);
  }
  apply();
  query.addEventListener("change", apply);
  window.addEventListener("storage", function (e) { if (e.key === null || e.key === ${JSON.stringify(THEME_STORAGE_KEY)}) apply(); });
})();`;
